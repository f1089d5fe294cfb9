"""What a renewal charges: the subscription's agreed price taxed for its buyer's country with
the store's tax settings of the day (manual rates, pure; or one Stripe Tax calculation), the
buyer as the first payment's tax evidence kept them (webstore.tax.renewal, docs/tax-model.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from webstore.catalog import Store, TaxCalculation
from webstore.checkout.gateway_choice import stripe_of
from webstore.errors import Invalid
from webstore.recurring import RecurringLine, RecurringPayment
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import Services
from webstore.tax import renewal as renewal_tax
from webstore.tax.model import PaymentTax
from webstore.tax.stripe_tax import StripeTax


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
    if settings.calculation is TaxCalculation.STRIPE_TAX:
        gateway = stripe_of(services, store)
        if gateway is None:
            raise Invalid("This store calculates tax with Stripe Tax but has no Stripe account", field="tax")
        quote = StripeTax(gateway.client()).quote(
            settings,
            amounts,
            currency=rp.currency,
            country=buyer.country,
            postal_code=buyer.postal_code,
            vat_id=buyer.vat_id,
            references=[f"{rp.reference}-{i + 1}" for i in range(len(amounts))],
        )
    else:
        quote = renewal_tax.manual_quote(settings, amounts, buyer, rp.currency)
    tax = renewal_tax.taxed_payment(quote, buyer, rp.currency)
    return RenewalPrice(renewal_tax.charged(amounts, tax), tax)
