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
from webstore.repo.payments import PaymentRecord
from webstore.services import Services
from webstore.tax import renewal as renewal_tax
from webstore.tax.model import PaymentTax


@dataclass(frozen=True)
class RenewalPrice:
    amount: Decimal  # what is charged (tax on top included)
    tax: PaymentTax | None  # None: the store charges no tax


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
