"""The events of a payment: `payment.*` with the payment subject, and `recurring-payment.*` for
the subscription (webstore.recurring) it starts, renews or ends. Use cases write them in the
transaction of the change (webstore.repo.outbox). Event ids derive from the payment (and the
subscription's change), so a re-run writes the same ids and receivers dedupe them."""

from __future__ import annotations

import uuid as uuid_module
from typing import Any

from webstore.domain.payment_status import RECURRING_FOLLOWS
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.money import ZERO
from webstore.payments.subject import SubjectLine, SubjectPayment, payment_subject
from webstore.recurring import RecurringPayment
from webstore.repo.payments import PaymentRecord

EVENT_NAMESPACE = uuid_module.UUID("6f1c2a4e-8f4b-4c1e-9d0a-2b7e5c3d9a10")


def event_id(account_id: int, reference: str, event_type: str) -> str:
    return str(uuid_module.uuid5(EVENT_NAMESPACE, f"{account_id}:{reference}:{event_type}"))


def status_events(
    payment: PaymentRecord,
    event_type: EventType | None = None,
    recurring: RecurringPayment | None = None,
    initial: PaymentRecord | None = None,
) -> list[DomainEvent]:
    """The payment in its current status (or as `event_type`), then what it means for the
    subscription it started or ended (`recurring`, as it stands after this payment; `initial`:
    its first payment when that is not `payment`)."""
    event_type = event_type or payment.status.event_type
    events = [
        DomainEvent(
            type=event_type,
            account_id=payment.account_id,
            subject=stored_payment_subject(payment),
            id=event_id(payment.account_id, payment.transaction_id, event_type),
        )
    ]
    recurring_event_type = payment.status.recurring_event
    if recurring is not None and recurring_event_type and event_type in RECURRING_FOLLOWS:
        events.append(recurring_event(recurring, recurring_event_type, last=payment, initial=initial))
    return events


def recurring_event(
    recurring: RecurringPayment,
    event_type: EventType,
    *,
    last: PaymentRecord,
    initial: PaymentRecord | None = None,
) -> DomainEvent:
    """One `recurring-payment.*` event; its id is derived from what changed (a re-run of the
    same change writes the same id, receivers dedupe it)."""
    return DomainEvent(
        type=event_type,
        account_id=recurring.account_id,
        subject=recurring_subject(recurring, last=last, initial=initial),
        id=event_id(recurring.account_id, recurring_event_key(recurring, event_type), event_type),
    )


def recurring_event_key(recurring: RecurringPayment, event_type: EventType) -> str:
    """What makes one recurring event distinct from the others of its type and subscription."""
    ref = recurring.reference
    if event_type is EventType.RECURRING_RENEWED:
        return f"{ref}:{recurring.payment_sequence}"
    if event_type is EventType.RECURRING_STATUS_CHANGED:
        return f"{ref}:{recurring.payment_sequence}:{recurring.fail_count}:{recurring.status.value}"
    if event_type is EventType.RECURRING_CANCELLATION_REQUESTED:
        return f"{ref}:requested:{recurring.cancel_requested_at}"
    if event_type is EventType.RECURRING_CANCELLATION_ABORTED:
        return f"{ref}:aborted:{recurring.updated_at}"
    return ref


def recurring_subject(
    recurring: RecurringPayment, *, last: PaymentRecord, initial: PaymentRecord | None = None
) -> dict[str, Any]:
    """The recurring-payment subject (COMPAT: recurring-payment.*). `initial` defaults to `last`
    (the first payment); a pending cancellation shows as `cancelled_at` (when it was asked
    for) and `cancel_reason` while the status is still active (docs/subscriptions.md); a declined
    renewal the player can complete adds `action_url` (our extension: where they complete it)."""
    last_subject = stored_payment_subject(last)
    first = recurring.lines[0] if recurring.lines else None
    cancelled_at = recurring.cancelled_at or recurring.cancel_requested_at
    action = recurring.renewal_action
    subject: dict[str, Any] = {
        "reference": recurring.reference,
        "created_at": recurring.created_at.isoformat(),
        "paused_at": None,
        "paused_until": None,
        "next_payment_at": recurring.next_payment_at.isoformat()
        if recurring.next_payment_at and recurring.ongoing
        else None,
        "status": {"id": recurring.status.value, "description": recurring.status.description},
        "initial_payment": stored_payment_subject(initial) if initial is not None else last_subject,
        "last_payment": last_subject,
        "fail_count": recurring.fail_count,
        "price": {"amount": float(recurring.amount), "currency": recurring.currency},
        "cancelled_at": cancelled_at.isoformat() if cancelled_at else None,
        "cancel_reason": recurring.cancel_reason,
        "product": {"id": first.package_id, "name": first.name} if first else None,
        "products": [{"id": line.package_id, "name": line.name} for line in recurring.lines],
        "custom": last.custom,
    }
    if action is not None and recurring.ongoing:  # our extension (docs/webhooks.md)
        subject["action_url"] = action.url
    return subject


def stored_payment_subject(payment: PaymentRecord) -> dict[str, Any]:
    """The webhook subject of a stored payment (COMPAT.md: payment subject)."""
    return payment_subject(
        SubjectPayment(
            transaction_id=payment.transaction_id,
            status=payment.status,
            created_at=payment.created_at,
            currency=payment.currency,
            price_paid=payment.amount,
            gateway=payment.gateway,
            email=payment.email,
            ip=payment.ip,
            country=payment.country,
            username_id=payment.username_id,
            username=payment.username,
            lines=[
                SubjectLine(
                    package_id=line.package_id,
                    name=line.name,
                    quantity=line.quantity,
                    base_price=line.base_price,
                    paid_price=line.price,
                    variables=line.variables,
                    username_id=line.username_id,
                    username=line.username,
                )
                for line in payment.lines
            ],
            coupons=payment.coupons,
            gift_cards=[(g.card_number, g.amount) for g in payment.giftcards],
            custom=payment.custom,
            creator_code=payment.creator_code,
            recurring_payment_reference=payment.recurring_payment_reference,
            payment_sequence=payment_sequence(payment),
            tax=payment.tax.tax if payment.tax is not None else ZERO,
            postal_code=payment.tax.evidence.billing_postal_code if payment.tax is not None else "",
        )
    )


def payment_sequence(payment: PaymentRecord) -> str:
    """`oneoff`, `recurring` (a subscription's payment of subscription lines only) or `mixed`."""
    if not payment.recurring_payment_reference:
        return "oneoff"
    return "recurring" if all(line.subscription for line in payment.lines) else "mixed"
