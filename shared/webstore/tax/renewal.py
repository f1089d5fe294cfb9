"""The tax of a renewal (and of any payment the store prices from a known buyer), pure.

A renewal is priced for the buyer the subscription's first payment was taxed for (its
`payment.tax`: the country decided from the evidence, the postal code, the VAT ID), with the
store's tax settings *as they are at renewal*: a rate changed since the first payment applies
to the next renewal, as a merchant's renewals do (docs/tax-model.md, "Renewals").

The subscription's amount is the price the player agreed to (the lines' list prices): with
prices that include tax, the renewal charges that amount and the tax inside it follows the rate
of the day; with tax on top, the renewal charges the amount plus the tax of the day.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from webstore.catalog import Tax, TaxCalculation
from webstore.money import ZERO
from webstore.tax import manual, vat_ids
from webstore.tax.model import PaymentTax, TaxEvidence, TaxQuote


@dataclass(frozen=True)
class TaxedBuyer:
    """Whom a payment without a checkout is taxed for."""

    country: str
    postal_code: str = ""
    vat_id: str = ""
    vat_id_status: str = ""
    evidence: TaxEvidence | None = None


def buyer_of(first: PaymentTax | None, settings: Tax, fallback_country: str = "") -> TaxedBuyer:
    """The buyer of a subscription as its first payment's tax kept them; a first payment
    without tax (recorded before tax, or in an untaxed store) is taxed for `fallback_country`
    (the payment's recorded country), else the store's own country."""
    if first is not None and first.country:
        return TaxedBuyer(
            country=first.country,
            postal_code=first.postal_code,
            vat_id=first.vat_id,
            vat_id_status=first.vat_id_status,
            evidence=first.evidence,
        )
    return TaxedBuyer(country=(fallback_country or settings.origin_country or "").upper())


def reverse_charge(settings: Tax, buyer: TaxedBuyer) -> bool:
    if not buyer.vat_id or not settings.reverse_charge:
        return False
    return vat_ids.reverse_charge(
        buyer.vat_id[:2].replace("EL", "GR"), buyer.country, settings.origin_country, buyer.vat_id_status
    )


def manual_quote(settings: Tax, amounts: Sequence[Decimal], buyer: TaxedBuyer, currency: str) -> TaxQuote:
    """The quote of the flat or manual settings for the buyer (per line, as the checkout's)."""
    return manual.quote(
        settings,
        amounts,
        country=buyer.country,
        currency=currency,
        postal_code=buyer.postal_code,
        reverse_charge=reverse_charge(settings, buyer),
    )


def taxed_payment(quote: TaxQuote, buyer: TaxedBuyer, currency: str) -> PaymentTax:
    """What the payment stores of a quote: lines, sums, the buyer's VAT ID and evidence."""
    lines = list(quote.lines)
    return PaymentTax(
        calculation=quote.calculation,
        inclusive=quote.inclusive,
        country=quote.country,
        postal_code=quote.postal_code,
        currency=currency,
        lines=lines,
        net=sum((line.net for line in lines), start=ZERO),
        tax=sum((line.tax for line in lines), start=ZERO),
        gross=sum((line.gross for line in lines), start=ZERO),
        reverse_charge=quote.reverse_charge,
        vat_id=buyer.vat_id,
        vat_id_status=buyer.vat_id_status,
        evidence=buyer.evidence or TaxEvidence(decided=quote.country),
        stripe_calculation_id=quote.stripe_calculation_id,
    )


def charged(amounts: Sequence[Decimal], tax: PaymentTax | None) -> Decimal:
    """What is charged for the line amounts: their sum, plus the tax when it is added on top."""
    total = sum(amounts, start=ZERO)
    if tax is None or tax.inclusive:
        return total
    return total + tax.tax


def untaxed(settings: Tax) -> bool:
    return not settings.charged or (settings.calculation is TaxCalculation.FLAT and settings.rate == ZERO)


@dataclass(frozen=True)
class RenewalCharge:
    """What a subscription's next renewal charges, as its views and notice tell it."""

    amount: Decimal  # the charge, tax included
    tax: Decimal  # the tax in it
    estimated: bool = False  # Stripe Tax: at the rates of the subscription's last charge


def expected_charge(
    settings: Tax,
    amounts: Sequence[Decimal],
    currency: str,
    *,
    first: PaymentTax | None,
    fallback_country: str = "",
    last: PaymentTax | None = None,
) -> RenewalCharge:
    """The next renewal's charge without calling Stripe: with manual rates or a flat rate, exactly
    what the renewal charges at today's settings (the same quote for the same buyer); with Stripe
    Tax, the amounts taxed at the rates Stripe gave the subscription's last charge (`last`, line by
    line; no tax when it had none), which Stripe's own calculation at renewal may differ from."""
    total = sum(amounts, start=ZERO)
    if untaxed(settings) or not amounts:
        return RenewalCharge(total, ZERO)
    if settings.calculation is TaxCalculation.STRIPE_TAX:
        rates = [line.rate for line in last.lines] if last is not None else []
        if not rates:
            return RenewalCharge(total, ZERO, estimated=True)
        lines = [
            manual.line_tax(
                amount, rates[min(i, len(rates) - 1)], inclusive=settings.inclusive, currency=currency
            )
            for i, amount in enumerate(amounts)
        ]
    else:
        lines = list(
            manual_quote(settings, amounts, buyer_of(first, settings, fallback_country), currency).lines
        )
    tax = sum((line.tax for line in lines), start=ZERO)
    return RenewalCharge(
        sum((line.gross for line in lines), start=ZERO),
        tax,
        estimated=settings.calculation is TaxCalculation.STRIPE_TAX,
    )
