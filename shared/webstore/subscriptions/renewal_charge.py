"""What a subscription's next renewal is said to charge (its views, the notice and the declined
renewal's e-mails) without calling anyone: webstore.tax.renewal.expected_charge over its first
and last payments. Kept apart from webstore.subscriptions.renewal_tax (which prices the renewal
itself, through Stripe Tax when the store uses it) so that the pages showing a subscription do
not carry the Stripe library (docs/deploy.md, "Assets")."""

from __future__ import annotations

from webstore.catalog import Store
from webstore.recurring import RecurringPayment
from webstore.repo import start_read
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import Services
from webstore.tax import renewal as renewal_tax


def first_payment(services: Services, rp: RecurringPayment) -> PaymentRecord | None:
    return PaymentRepository(services.table).get(rp.account_id, rp.initial_payment_id)


def expected_renewal(services: Services, store: Store, rp: RecurringPayment) -> renewal_tax.RenewalCharge:
    """What the next renewal of `rp` charges for its views (no Stripe call: webstore.tax.renewal.
    expected_charge); its first and last payments read (one read when they are the same)."""
    payments = PaymentRepository(services.table)
    amounts = [line.price for line in rp.lines]
    if renewal_tax.untaxed(store.tax) or not amounts:
        return renewal_tax.expected_charge(store.tax, amounts, rp.currency, first=None)
    last_read = (
        start_read(payments.get, rp.account_id, rp.last_payment_id)
        if rp.last_payment_id != rp.initial_payment_id
        else None
    )
    first = first_payment(services, rp)
    last = last_read.result() if last_read else first
    return renewal_tax.expected_charge(
        store.tax,
        amounts,
        rp.currency,
        first=first.tax if first else None,
        fallback_country=first.country if first else "",
        last=last.tax if last else None,
    )
