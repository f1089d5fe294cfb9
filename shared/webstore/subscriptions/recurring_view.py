"""The operator's view of a recurring payment: the real platform's Checkout API `RecurringPayment`
(docs/research/client-facts.md §23), unwrapped, plus the fields our subjects carry."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel

from webstore.recurring import RecurringPayment, RecurringStatus
from webstore.tax.renewal import RenewalCharge

# The real platform's status `class` (a CSS-ish hint clients show), by our status.
_STATUS_CLASS = {
    RecurringStatus.ACTIVE: "success",
    RecurringStatus.PAST_DUE: "warning",
    RecurringStatus.CANCELLED: "danger",
    RecurringStatus.EXPIRED: "danger",
}
# ISO-8601 duration designators of our period units.
_DURATION = {"day": "D", "week": "W", "month": "M", "year": "Y"}


class RecurringAmount(BaseModel):
    """The next renewal's charge: `amount` what it charges (tax included, as a payment's
    `price_paid`), `tax` the tax in it (docs/tax-model.md, "Renewals")."""

    amount: float
    tax: float
    period: str
    currency: str


class RecurringLinks(BaseModel):
    initial_payment: str
    payment_history: list[str]


class RecurringProduct(BaseModel):
    id: int
    name: str
    quantity: int
    username: str


class RecurringPaymentOut(BaseModel):
    id: int
    created_at: str
    updated_at: str
    paused_at: str | None
    paused_until: str | None
    next_payment_date: str | None
    reference: str
    account_id: int
    interval: str
    cancelled_at: str | None
    cancellation_requested_at: str | None
    status: dict[str, int | str]
    amount: RecurringAmount
    cancel_reason: str | None
    links: RecurringLinks
    # ours (the recurring-payment webhook subject's fields)
    fail_count: int
    payment_sequence: int
    products: list[RecurringProduct]


def interval(length: int, unit: str) -> str:
    return f"P{length}{_DURATION.get(unit, 'D')}"


def _iso(moment: datetime | None) -> str | None:
    return moment.isoformat() if moment else None


def recurring_payment_out(
    recurring: RecurringPayment, operator_url: str, charge: RenewalCharge | None = None
) -> RecurringPaymentOut:
    """`charge`: what the next renewal charges (webstore.subscriptions.renewal_charge.expected_renewal);
    None: the agreed price, untaxed."""
    status = recurring.status
    period = interval(recurring.period_length, recurring.period_unit)
    initial = f"{operator_url}/payments/{recurring.reference}"
    history = [f"{operator_url}/payments/{txn}" for txn in recurring.payment_history or [recurring.reference]]
    return RecurringPaymentOut(
        id=recurring.initial_payment_id,
        created_at=recurring.created_at.isoformat(),
        updated_at=recurring.updated_at.isoformat(),
        paused_at=None,
        paused_until=None,
        next_payment_date=_iso(recurring.next_payment_at) if recurring.ongoing else None,
        reference=recurring.reference,
        account_id=recurring.account_id,
        interval=period,
        cancelled_at=_iso(recurring.cancelled_at),
        cancellation_requested_at=_iso(recurring.cancel_requested_at),
        status={
            "id": int(status),
            "class": _STATUS_CLASS[status],
            "description": status.description,
            "active": int(recurring.ongoing),
        },
        amount=RecurringAmount(
            amount=float(charge.amount if charge else recurring.amount),
            tax=float(charge.tax if charge else 0),
            period=period,
            currency=recurring.currency,
        ),
        cancel_reason=recurring.cancel_reason,
        links=RecurringLinks(initial_payment=initial, payment_history=history),
        fail_count=recurring.fail_count,
        payment_sequence=recurring.payment_sequence,
        products=[
            RecurringProduct(
                id=line.package_id, name=line.name, quantity=line.quantity, username=line.username
            )
            for line in recurring.lines
        ],
    )
