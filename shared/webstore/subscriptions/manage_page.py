"""The player's manage-subscription page (templates/hosted/manage_subscription.html) in the
store's brand: what the subscription is, and one form (cancel, or undo a cancellation) that posts
back to the page itself. No scripts; every value escaped by the template."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cache

from webstore.html import Page
from webstore.html.player import UNBRANDED, Brand, content_security_policy, page
from webstore.money import round_money, symbol

TITLE = "Your subscription"  # also of the problem page when the link is not valid


@cache
def policy() -> str:
    """The route's policy: the form posts to the page itself, then a 303 to it again."""
    return content_security_policy()


CANCEL = "cancel"
UNDO = "undo"
ACTIONS = (CANCEL, UNDO)
MAX_REASON = 200


@dataclass(frozen=True)
class ManageView:
    """What the page shows of one recurring payment."""

    store: str
    packages: list[str]
    amount: Decimal
    currency: str
    period_length: int
    period_unit: str
    status: str  # the status' description
    ongoing: bool
    next_payment_at: datetime | None
    cancel_requested_at: datetime | None
    ended_at: datetime | None
    action_url: str = ""  # a declined renewal the player can complete there (their bank asks)


def day(moment: datetime | None) -> str:
    return moment.strftime("%d %B %Y") if moment else "—"


def money(amount: Decimal, currency: str) -> str:
    """`$4.99 USD`: an amount as the subscription pages show it."""
    return f"{symbol(currency)}{round_money(amount, currency)} {currency}"


def price(view: ManageView) -> str:
    unit = view.period_unit if view.period_length == 1 else f"{view.period_length} {view.period_unit}s"
    amount = round_money(view.amount, view.currency)
    return f"{symbol(view.currency)}{amount} {view.currency} every {unit}"


def manage_page(view: ManageView, form_token: str, brand: Brand = UNBRANDED, *, find_url: str = "") -> Page:
    """The page in one of its three states: renewing (cancel form), ending (undo form), ended;
    in the store's `brand`, with the policy that allows it; `find_url`: the store's "Find my
    subscriptions" form."""
    if not view.ongoing:
        state, notice = "ended", f"This subscription ended on {day(view.ended_at)}."
        label, date = "Ended on", day(view.ended_at)
    elif view.cancel_requested_at is not None:
        state = "ending"
        notice = f"Cancelled: your subscription ends on {day(view.next_payment_at)} and will not renew."
        label, date = "Ends on", day(view.next_payment_at)
    else:
        state, notice = "renewing", ""
        label, date = "Next payment", day(view.next_payment_at)
    html = page(
        "hosted/manage_subscription.html",
        brand=brand,
        title=TITLE,
        view=view,
        state=state,
        notice=notice,
        amount=price(view),
        date_label=label,
        date=date,
        form_token=form_token,
        max_reason=MAX_REASON,
        find_url=find_url,
    )
    return Page.with_policy(html, brand.policy())
