"""The subscriptions pages' bodies, rendered from templates/panel/subscriptions/: the store's
recurring payments, and one of them with its payments and the cancel-at-period-end form (or its
undo). HTTP-free."""

from __future__ import annotations

from webstore.admin.subscriptions import SubscriptionPage
from webstore.admin.views.money import body, when
from webstore.html import Markup
from webstore.recurring import RecurringPayment


def period(recurring: RecurringPayment) -> str:
    unit = recurring.period_unit + ("s" if recurring.period_length != 1 else "")
    return f"every {recurring.period_length} {unit}"


def state(recurring: RecurringPayment) -> str:
    if recurring.ongoing and recurring.cancel_requested_at is not None:
        return f"{recurring.status.description}, ends {when(recurring.next_payment_at)}"
    return recurring.status.description


def list_body(page: SubscriptionPage) -> Markup:
    return body("panel/subscriptions/list.html", page=page, period=period, state=state)


def detail_body(recurring: RecurringPayment, *, csrf: Markup | None, done: str = "") -> Markup:
    """One subscription. `csrf` None: a role that may not act (no forms)."""
    history = list(reversed(recurring.payment_history or [recurring.reference]))
    return body(
        "panel/subscriptions/detail.html",
        recurring=recurring,
        history=history,
        period=period,
        state=state,
        csrf=csrf,
        done=done,
    )
