"""What a renewal charges: the subscription's agreed price taxed for its buyer's country with
the store's tax settings of the day (manual rates, pure; or one Stripe Tax calculation), the
buyer as the first payment's tax evidence kept them (webstore.tax.renewal, docs/tax-model.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from webstore.catalog import Store
from webstore.checkout.tax_details import tax_for_buyer
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo import start_read
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import Services
from webstore.tax import renewal as renewal_tax
from webstore.tax.model import PaymentTax


@dataclass(frozen=True)
class RenewalPrice:
    amount: Decimal  # what is charged (tax on top included)
    tax: PaymentTax | None  # None: the store charges no tax


def first_payment(services: Services, rp: RecurringPayment) -> PaymentRecord | None:
    return PaymentRepository(services.table).get(rp.account_id, rp.initial_payment_id)


def price_renewal(
    services: Services,
    store: Store,
    rp: RecurringPayment,
    lines: Sequence[RecurringLine],
    first: PaymentRecord | None,
) -> RenewalPrice:
    amounts = [line.price for line in lines]
    settings = store.tax
    if renewal_tax.untaxed(settings) or not amounts:
        return RenewalPrice(renewal_tax.charged(amounts, None), None)
    buyer = renewal_tax.buyer_of(first.tax if first else None, settings, first.country if first else "")
    references = [f"{rp.reference}-{i + 1}" for i in range(len(amounts))]
    tax = tax_for_buyer(services, settings, store, amounts, buyer, rp.currency, references)
    return RenewalPrice(renewal_tax.charged(amounts, tax), tax)


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
