"""HTML of the player's manage-subscription page, in the hosted pages' common frame
(`storefront.pages`): what the subscription is, and one form (cancel, or undo a cancellation)
that posts back to the page itself. No scripts; every value escaped."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from string import Template

from webstore.money import round_money, symbol
from webstore.storefront.pages import Safe, content_security_policy, fill, page

TITLE = "Your subscription"  # also of the problem page when the link is not valid
CSP = content_security_policy()  # the form posts to the page itself, then a 303 to it again
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


_PAGE = Template("""<h1>Your subscription at $store</h1>
$notice
$action
<table aria-label="Subscription">
<tbody>
<tr><th>Package</th><td id="package">$packages</td></tr>
<tr><th>Amount</th><td id="amount">$amount</td></tr>
<tr><th>Status</th><td id="status">$status</td></tr>
<tr><th>$date_label</th><td id="date">$date</td></tr>
</tbody>
</table>
$form""")

_CANCEL_FORM = Template("""<form method="post">
<input type="hidden" name="action" value="cancel">
<input type="hidden" name="form_token" value="$form_token">
<label for="reason">Why are you cancelling? (optional)</label>
<input id="reason" name="reason" type="text" maxlength="$max_reason" autocomplete="off">
<p class="help">You keep it until $date and are not charged again.</p>
<button id="cancel" type="submit">Cancel subscription</button>
</form>""")

_UNDO_FORM = Template("""<form method="post">
<input type="hidden" name="action" value="undo">
<input type="hidden" name="form_token" value="$form_token">
<button id="undo" type="submit">Keep my subscription</button>
</form>""")

_NOTICE = Template('<p id="notice" role="status">$text</p>')
_ACTION = Template(
    '<p id="action" role="alert">Your bank needs you to confirm the renewal payment: '
    '<a id="complete-payment" href="$url">Complete payment</a></p>'
)


def day(moment: datetime | None) -> str:
    return moment.strftime("%d %B %Y") if moment else "—"


def money(amount: Decimal, currency: str) -> str:
    """`$4.99 USD`: an amount as the subscription pages show it."""
    return f"{symbol(currency)}{round_money(amount, currency)} {currency}"


def price(view: ManageView) -> str:
    unit = view.period_unit if view.period_length == 1 else f"{view.period_length} {view.period_unit}s"
    amount = round_money(view.amount, view.currency)
    return f"{symbol(view.currency)}{amount} {view.currency} every {unit}"


def manage_page(view: ManageView, form_token: str) -> str:
    """The page in one of its three states: renewing (cancel form), ending (undo form), ended."""
    if not view.ongoing:
        notice = f"This subscription ended on {day(view.ended_at)}."
        label, date, form = "Ended on", day(view.ended_at), Safe("")
    elif view.cancel_requested_at is not None:
        notice = f"Cancelled: your subscription ends on {day(view.next_payment_at)} and will not renew."
        label, date = "Ends on", day(view.next_payment_at)
        form = fill(_UNDO_FORM, form_token=form_token)
    else:
        notice = ""
        label, date = "Next payment", day(view.next_payment_at)
        form = fill(_CANCEL_FORM, form_token=form_token, max_reason=str(MAX_REASON), date=date)
    content = fill(
        _PAGE,
        store=view.store,
        notice=fill(_NOTICE, text=notice) if notice else Safe(""),
        action=fill(_ACTION, url=view.action_url) if view.action_url and view.ongoing else Safe(""),
        packages=", ".join(view.packages),
        amount=price(view),
        status=view.status,
        date_label=label,
        date=date,
        form=form,
    )
    return page(TITLE, content)
