"""The events of a payment: `payment.*` with the payment subject, and `recurring-payment.*` for
its subscription lines. Event ids derive from the payment, so a re-run publishes the same ids
and receivers dedupe them."""

from __future__ import annotations

import uuid as uuid_module
from typing import Any

from webstore.event_types import EventType
from webstore.events import DomainEvent, Publisher
from webstore.payments.status import RECURRING_FOLLOWS, RecurringStatus
from webstore.payments.subject import SubjectLine, SubjectPayment, payment_subject
from webstore.repo.payments import PaymentLine, PaymentRecord

EVENT_NAMESPACE = uuid_module.UUID("6f1c2a4e-8f4b-4c1e-9d0a-2b7e5c3d9a10")


def event_id(account_id: int, reference: str, event_type: str) -> str:
    return str(uuid_module.uuid5(EVENT_NAMESPACE, f"{account_id}:{reference}:{event_type}"))


def publish_status(publisher: Publisher, payment: PaymentRecord, event_type: EventType | None = None) -> None:
    """Publish the payment in its current status (or as `event_type`), then what it means for
    its subscription lines."""
    event_type = event_type or payment.status.event_type
    publisher.publish(
        DomainEvent(
            type=event_type,
            account_id=payment.account_id,
            subject=stored_payment_subject(payment),
            id=event_id(payment.account_id, payment.transaction_id, event_type),
        )
    )
    recurring = payment.status.recurring_event
    if recurring and event_type in RECURRING_FOLLOWS:
        publish_recurring(publisher, payment, recurring)


def publish_recurring(publisher: Publisher, payment: PaymentRecord, event_type: EventType) -> None:
    """One event per subscription line of the payment."""
    for line in payment.lines:
        if not line.subscription:
            continue
        reference = f"{payment.transaction_id}-{line.package_id}"
        publisher.publish(
            DomainEvent(
                type=event_type,
                account_id=payment.account_id,
                subject=recurring_subject(
                    payment, line, reference, ended=event_type is EventType.RECURRING_ENDED
                ),
                id=event_id(payment.account_id, reference, event_type),
            )
        )


def recurring_subject(
    payment: PaymentRecord, line: PaymentLine, reference: str, *, ended: bool
) -> dict[str, Any]:
    """The recurring-payment subject of one subscription line (COMPAT: recurring-payment.*)."""
    subject = stored_payment_subject(payment)
    status = RecurringStatus.CANCELLED if ended else RecurringStatus.ACTIVE
    return {
        "reference": reference,
        "created_at": payment.created_at.isoformat(),
        "next_payment_at": None,
        "status": {"id": status.id, "description": status.description},
        "initial_payment": subject,
        "last_payment": subject,
        "fail_count": 0,
        "price": {"amount": float(line.price), "currency": payment.currency},
        "cancelled_at": payment.updated_at.isoformat() if ended else None,
        "cancel_reason": str(payment.status) if ended else None,
        "product": {"id": line.package_id, "name": line.name},
        "custom": payment.custom,
    }


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
        )
    )
