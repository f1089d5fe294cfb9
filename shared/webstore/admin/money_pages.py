"""The payments, subscriptions and players pages as the handlers serve them: each page's body
(title, HTML, status) from the request's fields, and each form's action, which answers where
to go next (Post/Redirect/Get) or raises the refusal (webstore.admin.flow shows the page again).

The handlers add the session (whose store, which role, the CSRF field) and the shell
(`webstore.admin.layout.panel_page`); everything else is here, HTTP-free. Messages after an
action are fixed texts chosen by a code (`?done=refunded`), never text from the URL.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin import payments, players, subscriptions
from webstore.admin.flow import PanelPage
from webstore.admin.views import payments as payment_views
from webstore.admin.views import players as player_views
from webstore.admin.views import subscriptions as subscription_views
from webstore.admin.views.money import notice, path
from webstore.errors import DomainError, Invalid, NotFound
from webstore.services import Services
from webstore.storefront.pages import Safe, escape

DONE = {
    "refunded": "Refunded. The refund commands are queued.",
    "chargeback": "Marked as a chargeback. The chargeback commands are queued.",
    "noted": "Note added.",
    "resent": "The payment's commands are queued again.",
    "already-resent": "Those commands were queued by the same form already; nothing more was queued.",
    "cancelled": "The subscription ends when its paid period does.",
    "kept": "The subscription continues.",
    "banned": "Banned.",
    "lifted": "The ban is lifted.",
}


def done_text(code: str | None) -> str:
    return DONE.get(code or "", "")


def _page(title: str, body: Safe, section: str, status: int = 200) -> PanelPage:
    return PanelPage(title, Safe(f"<h1>{escape(title)}</h1>" + body), section, status)


def _with_error(body: Safe, error: str) -> Safe:
    return Safe(notice(error, css="error") + body) if error else body


# --- payments --------------------------------------------------------------------------------------


def payments_page(services: Services, account_id: int, query: Mapping[str, str]) -> PanelPage:
    """The search form and one page of results; a bad field shows the form with why (422)."""
    try:
        search = payments.parse_search(query)
    except Invalid as error:
        empty = payments.SearchResult([], None)
        body = _with_error(payment_views.search_body(payments.PaymentSearch(), empty), error.detail)
        return _page("Payments", body, "payments", error.status)
    result = payments.search_payments(services, account_id, search)
    return _page("Payments", payment_views.search_body(search, result), "payments")


def payment_page(
    services: Services,
    account_id: int,
    transaction: str,
    *,
    csrf: Callable[[], Safe | None],
    done: str | None = None,
    error: DomainError | None = None,
) -> PanelPage:
    """One payment; `csrf` (asked for once the page's reads are issued: the session's check
    shares their round trip) gives None for a role without payment actions (no forms)."""
    detail = payments.payment_detail(services, account_id, transaction)
    body = payment_views.detail_body(
        detail, csrf=csrf(), resend_id=secrets.token_hex(16), done=done_text(done)
    )
    if error is not None:
        return _page(f"Payment {transaction}", _with_error(body, error.detail), "payments", error.status)
    return _page(f"Payment {transaction}", body, "payments")


def payment_url(transaction: str, done: str) -> str:
    return f"{path('payments', transaction)}?{urlencode({'done': done})}"


def payment_action(
    services: Services,
    account_id: int,
    transaction: str,
    action: str,
    form: Mapping[str, str],
    *,
    by: str,
    now: datetime,
) -> str:
    """Run one of the payment's forms: the URL to go to (a refusal is raised)."""

    def refund() -> str:
        payments.refund(services, account_id, transaction, by, now)
        return "refunded"

    def chargeback() -> str:
        payments.mark_chargeback(services, account_id, transaction, by, now)
        return "chargeback"

    def note() -> str:
        payments.add_note(services, account_id, transaction, form.get("note", ""), by, now)
        return "noted"

    def resend() -> str:
        queued = payments.resend(services, account_id, transaction, form.get("resend_id", ""), by, now)
        return "resent" if queued else "already-resent"

    steps: dict[str, Callable[[], str]] = {
        "refund": refund,
        "chargeback": chargeback,
        "notes": note,
        "resend": resend,
    }
    if action not in steps:
        raise NotFound("No such action")
    return payment_url(transaction, steps[action]())


# --- subscriptions ----------------------------------------------------------------------------------


def subscriptions_page(services: Services, account_id: int, query: Mapping[str, str]) -> PanelPage:
    page = subscriptions.subscriptions_page(services, account_id, query.get("below") or None)
    return _page("Subscriptions", subscription_views.list_body(page), "subscriptions")


def subscription_page(
    services: Services,
    account_id: int,
    reference: str,
    *,
    csrf: Callable[[], Safe | None],
    done: str | None = None,
    error: DomainError | None = None,
) -> PanelPage:
    recurring = subscriptions.subscription(services, account_id, reference)
    body = subscription_views.detail_body(recurring, csrf=csrf(), done=done_text(done))
    title = f"Subscription {reference}"
    if error is not None:
        return _page(title, _with_error(body, error.detail), "subscriptions", error.status)
    return _page(title, body, "subscriptions")


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
    """Cancel at period end (`cancel`) or keep it (`undo-cancel`)."""
    if action == "cancel":
        subscriptions.cancel_at_period_end(services, account_id, reference, form.get("reason", ""), by, now)
        code = "cancelled"
    elif action == "undo-cancel":
        subscriptions.undo_cancel(services, account_id, reference, by, now)
        code = "kept"
    else:
        raise NotFound("No such action")
    return f"{path('subscriptions', reference)}?{urlencode({'done': code})}"


# --- players and bans -------------------------------------------------------------------------------


def players_page(services: Services, account_id: int, query: Mapping[str, str]) -> str | PanelPage:
    """The lookup form; a looked-up name or UUID goes to its player's page (a URL to go to)."""
    wanted = (query.get("player") or "").strip()
    if wanted:
        return path("players", wanted)
    return _page("Players", player_views.LOOKUP, "players")


def player_page(
    services: Services,
    account_id: int,
    ref: str,
    query: Mapping[str, str],
    *,
    csrf: Callable[[], Safe | None],
) -> PanelPage:
    cursor = query.get("cursor") or None
    history = players.player_history(services, account_id, ref, cursor)
    body = player_views.player_body(history, cursor=cursor, csrf=csrf(), done=done_text(query.get("done")))
    return _page(f"Player {history.player.username}", Safe(player_views.LOOKUP + body), "players")


def bans_page(
    services: Services,
    account_id: int,
    query: Mapping[str, str],
    *,
    csrf: Callable[[], Safe | None],
    error: DomainError | None = None,
) -> PanelPage:
    page = players.bans_page(services, account_id, query.get("below") or None)
    body = player_views.bans_body(page, csrf=csrf(), done=done_text(query.get("done")))
    if error is not None:
        return _page("Bans", _with_error(body, error.detail), "players", error.status)
    return _page("Bans", body, "players")


def ban_action(
    services: Services, account_id: int, form: Mapping[str, str], *, by: str, now: datetime
) -> str:
    players.ban(services, account_id, form, by, now)
    return "/bans?done=banned"


def lift_action(services: Services, account_id: int, ban_id: str, *, by: str, now: datetime) -> str:
    """Lift (404 for what is no ban of this store, or was lifted already)."""
    players.lift(services, account_id, ban_id, by, now)
    return "/bans?done=lifted"
