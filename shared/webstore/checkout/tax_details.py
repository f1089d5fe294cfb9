"""The checkout's billing details: the buyer's country (and postal code where Stripe Tax needs
it) and an optional VAT ID, given before paying; the basket's tax is calculated for them once
here (the manual table, or one Stripe Tax calculation) and kept with the basket, so that the
page shows, and the payment charges, that tax (docs/tax-model.md)."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from datetime import datetime
from decimal import Decimal

from webstore.basket import Basket
from webstore.catalog import Store, Tax, TaxCalculation, TaxMode
from webstore.checkout.gateway_choice import stripe_of
from webstore.errors import Invalid
from webstore.html import PageResult
from webstore.services import Services
from webstore.storefront.basket_read import Loaded
from webstore.storefront.baskets import change
from webstore.tax import renewal as taxed_buyer
from webstore.tax import vat_ids
from webstore.tax.countries import COUNTRIES, POSTAL_CODE_NEEDED
from webstore.tax.model import PaymentTax, TaxEvidence
from webstore.tax.renewal import TaxedBuyer
from webstore.tax.stripe_tax import StripeTax

logger = logging.getLogger(__name__)
RECALCULATE = "Your basket changed since the tax was calculated: confirm your billing country again."
_POSTAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 \-]{1,11}$")
BILLING_COUNTRY = "billing_country"


def asks_for_country(store: Store) -> bool:
    """Whether the tax depends on the buyer's country (then the checkout asks for it)."""
    return store.tax.charged and store.tax.calculation is not TaxCalculation.FLAT


def check_country(value: str, field: str = BILLING_COUNTRY) -> str:
    country = value.strip().upper()
    if country not in COUNTRIES:
        raise Invalid(f"{field}: choose your country from the list", field=field)
    return country


def check_postal_code(value: str, country: str, store: Store) -> str:
    postal = value.strip().upper()
    needed = country in POSTAL_CODE_NEEDED and store.tax.calculation is TaxCalculation.STRIPE_TAX
    if not postal:
        if needed:
            raise Invalid(
                "billing_postal_code: the tax in your country depends on it; enter your postal code",
                field="billing_postal_code",
            )
        return ""
    if not _POSTAL.match(postal):
        raise Invalid(
            "billing_postal_code: 2 to 12 letters, digits, spaces or dashes", field="billing_postal_code"
        )
    return postal


def viewer_country(header: str | None) -> str:
    """The client address's country as CloudFront (or API Gateway behind it) tells it in the
    `CloudFront-Viewer-Country` header; "" when absent or not a country code."""
    value = (header or "").strip().upper()
    return value if re.fullmatch(r"[A-Z]{2}", value) and value != "XX" else ""


def set_billing(
    services: Services,
    ident: str,
    *,
    country: str,
    postal_code: str = "",
    vat_id: str = "",
    ip_country: str = "",
    checkout_url: str,
) -> PageResult:
    """Keep the buyer's billing country (postal code, VAT ID) on the basket and price its tax
    for them; back to the checkout page, which shows it."""
    country = check_country(country)

    def apply(loaded: Loaded, now: datetime) -> None:
        basket, store = loaded.basket, loaded.store
        buyer = basket.buyer_tax
        buyer.billing_country = country
        buyer.billing_postal_code = check_postal_code(postal_code, country, store)
        if ip_country:
            buyer.ip_country = ip_country
        buyer.vat_id, buyer.vat_id_status = "", vat_ids.VatIdStatus.NONE.value
        if vat_id.strip():
            buyer.vat_id, _ = vat_ids.parse(vat_id)  # the shape first: a 422 before Stripe
            buyer.vat_id_status = verify_vat_id(services, store, buyer.vat_id, ident).value
        basket.country = country
        buyer.quote = None
        calculate(services, basket, store, now)

    change(services, ident, None, apply)
    return PageResult(redirect=checkout_url)


# Stripe's verification of a customer tax ID (`tax_id.verification.status`) → the store's.
_VERIFICATION = {
    "verified": vat_ids.VatIdStatus.VALID,
    "unverified": vat_ids.VatIdStatus.INVALID,  # the tax authority does not know it
    "pending": vat_ids.VatIdStatus.UNVERIFIED,
    "unavailable": vat_ids.VatIdStatus.UNVERIFIED,
}


def verify_vat_id(services: Services, store: Store, vat_id: str, ident: str) -> vat_ids.VatIdStatus:
    """The VAT ID as Stripe's check of it stands now, for a store with a Stripe account: a
    Customer with the ID (`tax_id_data`, type `eu_vat`), its `verification.status` read back.
    Without Stripe, or when Stripe cannot be reached, the ID stays `unverified` (its shape was
    checked). Stripe checks asynchronously: a `pending` answer is `unverified` here."""
    gateway = stripe_of(services, store)
    if gateway is None:
        return vat_ids.VatIdStatus.UNVERIFIED
    try:
        client = gateway.client()
        customer = client.v1.customers.create(
            params={
                "tax_id_data": [{"type": "eu_vat", "value": vat_id}],
                "metadata": {"basket_ident": ident},
            },
            options={"idempotency_key": f"vat-{ident}-{vat_id}"},
        )
        found = client.v1.customers.tax_ids.list(str(customer["id"]))
        status = str(
            ((found.data[0].to_dict() if found.data else {}).get("verification") or {}).get("status")
        )
    except Exception as error:  # the shape stands; the checkout goes on
        logger.warning("stripe: VAT ID not verified: %s", getattr(error, "code", error))
        return vat_ids.VatIdStatus.UNVERIFIED
    return _VERIFICATION.get(status, vat_ids.VatIdStatus.UNVERIFIED)


def calculate(services: Services, basket: Basket, store: Store, now: datetime) -> None:
    """Price the basket's tax for its buyer: pure for manual rates; one Stripe Tax calculation
    (kept with the basket) for a Stripe Tax store."""
    basket.reprice(store, now)
    if not basket.tax_pending(store):
        return
    gateway = stripe_of(services, store)
    if gateway is None:
        raise Invalid("This store calculates tax with Stripe Tax but has no Stripe account", field="tax")
    buyer = basket.buyer_tax
    basket.buyer_tax.quote = StripeTax(gateway.client()).quote(
        store.tax,
        [line.line_price for line in basket.lines],
        currency=basket.currency,
        country=basket.taxed_country(store),
        postal_code=buyer.billing_postal_code,
        # An ID Stripe found not valid is not a business's: Stripe Tax charges the tax.
        vat_id=buyer.vat_id if buyer.vat_id_status != vat_ids.VatIdStatus.INVALID else "",
        references=[line.ident for line in basket.lines],
    )
    basket.reprice(store, now)


def tax_for_buyer(
    services: Services,
    settings: Tax,
    store: Store,
    amounts: Sequence[Decimal],
    buyer: TaxedBuyer,
    currency: str,
    references: Sequence[str] = (),
) -> PaymentTax:
    """The tax of line amounts for a known buyer outside a basket (a renewal, a manual payment):
    the manual table or flat rate (pure), or one Stripe Tax calculation in the store's account."""
    if settings.calculation is TaxCalculation.STRIPE_TAX:
        gateway = stripe_of(services, store)
        if gateway is None:
            raise Invalid("This store calculates tax with Stripe Tax but has no Stripe account", field="tax")
        quote = StripeTax(gateway.client()).quote(
            settings,
            amounts,
            currency=currency,
            country=buyer.country,
            postal_code=buyer.postal_code,
            vat_id=buyer.vat_id,
            references=references,
        )
    else:
        quote = taxed_buyer.manual_quote(settings, amounts, buyer, currency)
    return taxed_buyer.taxed_payment(quote, buyer, currency)


def manual_payment_tax(
    services: Services, store: Store, amounts: Sequence[Decimal], country: str
) -> PaymentTax | None:
    """The tax inside a manual payment's price (operator API `createPayment`): the price is
    what the buyer paid, so its tax is the part of each line that is tax (inclusive, whatever
    the store's mode), at the rate of `country` (the given one, else the store's own); None when
    the store charges no tax. Its evidence is the country the operator declared."""
    settings = store.tax
    if taxed_buyer.untaxed(settings) or not amounts:
        return None
    decided = country or (settings.origin_country or "")
    evidence = TaxEvidence(
        billing_country=country, decided=decided, agree=["billing_country"] if country else []
    )
    buyer = TaxedBuyer(country=decided, evidence=evidence)
    inclusive = settings.model_copy(update={"mode": TaxMode.INCLUSIVE})
    return tax_for_buyer(services, inclusive, store, amounts, buyer, store.currency)


def refusal(basket: Basket, store: Store) -> str:
    """Why the basket cannot be paid yet for its tax ("" when it can): the store's tax depends
    on the buyer's country and none was given, or Stripe Tax has not priced these lines."""
    if not asks_for_country(store) or not basket.lines:
        return ""
    if not basket.buyer_tax.billing_country:
        return "Choose your billing country first: the tax you pay depends on it."
    return RECALCULATE if basket.tax_pending(store) else ""


def record_stripe_tax(services: Services, store: Store, calculation_id: str, reference: str) -> str | None:
    """The Stripe Tax transaction of a paid calculation (so Stripe's tax reports hold the sale);
    None when Stripe cannot be reached now: the payment stands and keeps the calculation's id,
    from which the transaction can still be made (docs/tax-model.md)."""
    gateway = stripe_of(services, store)
    if gateway is None:
        return None
    try:
        return StripeTax(gateway.client()).record(calculation_id, reference)
    except Exception as error:  # the charge is made: never lose the payment over its tax record
        logger.warning("stripe tax: no transaction for %s: %s", calculation_id, getattr(error, "code", error))
        return None


def reverse_stripe_tax(
    services: Services, store: Store, transaction_id: str, reference: str, amount: Decimal | None = None
) -> str:
    """Reverse a payment's Stripe Tax transaction on a refund: all of it (`amount` None) or the
    part a partial refund of `amount` (tax included) gives back. `reference`: one per refund
    (a retry with the same one answers the same reversal). For the refund use cases."""
    gateway = stripe_of(services, store)
    if gateway is None:
        raise Invalid("This store has no Stripe account to reverse its tax in", field="tax")
    return StripeTax(gateway.client()).reverse(
        transaction_id, reference, amount=amount, currency=store.currency
    )
