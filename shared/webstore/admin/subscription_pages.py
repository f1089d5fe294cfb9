"""The subscriptions pages (`/subscriptions`, `/subscriptions/{reference}`): the store's
recurring payments, one of them, and its forms (cancel at the end of the period, or keep it).
HTTP-free; the handlers add the session and the shell."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin import subscriptions
from webstore.admin.flow import PanelPage
from webstore.admin.views import subscriptions as subscription_views
from webstore.admin.views.money import path, titled
from webstore.errors import DomainError, NotFound
from webstore.html import Markup
from webstore.services import Services

DONE = {
    "cancelled": "The subscription ends when its paid period does.",
    "kept": "The subscription continues.",
}


def subscriptions_page(services: Services, account_id: int, query: Mapping[str, str]) -> PanelPage:
    page = subscriptions.subscriptions_page(services, account_id, query.get("below") or None)
    return titled("Subscriptions", subscription_views.list_body(page), "subscriptions")


def subscription_page(
    services: Services,
    account_id: int,
    reference: str,
    *,
    csrf: Callable[[], Markup | None],
    done: str | None = None,
    error: DomainError | None = None,
) -> PanelPage:
    """One subscription; `csrf` None for a role that may not act on it (no forms)."""
    recurring = subscriptions.subscription(services, account_id, reference)
    body = subscription_views.detail_body(recurring, csrf=csrf(), done=DONE.get(done or "", ""))
    return titled(f"Subscription {reference}", body, "subscriptions", error=error)


def subscription_action(
    services: Services,
    account_id: int,
    reference: str,
    action: str,
    form: Mapping[str, str],
    *,
    by: str,
    now: datetime,
) -> str:
    """Cancel at period end (`cancel`) or keep it (`undo-cancel`): the URL to go to."""
    if action == "cancel":
        subscriptions.cancel_at_period_end(services, account_id, reference, form.get("reason", ""), by, now)
        code = "cancelled"
    elif action == "undo-cancel":
        subscriptions.undo_cancel(services, account_id, reference, by, now)
        code = "kept"
    else:
        raise NotFound("No such action")
    return f"{path('subscriptions', reference)}?{urlencode({'done': code})}"
