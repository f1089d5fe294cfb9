"""A Stripe Tax transaction that could not be made when its payment was recorded (Stripe out
of reach) is retried by the clock (docs/tax-model.md, "Stripe Tax transactions retried"): the
payment's transaction holds a schedule item (`ScheduleKind.TAX`, reference = the payment's
transaction id, due at once); each processor run tries again (`retry`) until Stripe answers,
then keeps the transaction's id on the payment and the item goes. The payment page shows the
transaction as not recorded yet meanwhile."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Protocol

from webstore.recurring import ScheduleItem, ScheduleKind
from webstore.repo import Transaction
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.schedule import ScheduleRepository, schedule_key
from webstore.repo.store import StoreRepository
from webstore.services import Services


class TaxRecorder(Protocol):
    def record(self, calculation_id: str, reference: str, attempt: str = "") -> str: ...


def add_retry(tx: Transaction, payment: PaymentRecord, now: datetime) -> None:
    """The retry's schedule item, in the transaction that records `payment`."""
    key = schedule_key(ScheduleKind.TAX, payment.account_id, payment.transaction_id, now)
    item = ScheduleItem(
        kind=ScheduleKind.TAX, account_id=payment.account_id, reference=payment.transaction_id, due_at=now
    )
    ScheduleRepository.add_item(tx, key, item)


def retry(services: Services, account_id: int, transaction_id: str) -> str | None:
    """Make the payment's Stripe Tax transaction now (Stripe's error passes through: the item
    stays for the next run); its id, or None when there is nothing (left) to make."""
    from webstore.checkout.gateway_choice import stripe_of
    from webstore.tax.stripe_tax import StripeTax

    repo = PaymentRepository(services.table)
    payment = repo.by_transaction(account_id, transaction_id)
    tax = payment.tax
    if tax is None or not tax.stripe_calculation_id or tax.stripe_transaction_id:
        return None
    gateway = stripe_of(services, StoreRepository(services.table).store(account_id))
    if gateway is None:
        return None
    made = record_again(StripeTax(gateway.client()), tax.stripe_calculation_id, payment.idempotency_key)
    repo.set_tax_transaction(account_id, payment.id, made)
    return made


def record_again(stripe_tax: TaxRecorder, calculation_id: str, reference: str) -> str:
    """First with the payment's own key: if Stripe made the transaction and only its answer was
    lost, Stripe replays that answer (the id), where a new key would be refused as a second
    transaction for the reference. If the first try's answer was itself an error (which Stripe
    replays too), then with a new key."""
    try:
        return stripe_tax.record(calculation_id, reference)
    except Exception:  # Stripe's errors and no answer alike: the new key decides
        attempt = f"retry-{uuid.uuid4().hex[:12]}"
        return stripe_tax.record(calculation_id, reference, attempt)
