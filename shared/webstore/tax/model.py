"""What the tax port answers and what a basket and a payment keep of it (docs/tax-model.md)."""

from __future__ import annotations

from decimal import Decimal

from pydantic import Field

from webstore.catalog import Model, TaxCalculation


class TaxEvidence(Model):
    """The pieces of evidence of the buyer's country (EU digital services: two that agree)."""

    billing_country: str = ""  # asked at checkout
    billing_postal_code: str = ""
    ip_country: str = ""  # the client address's country (viewer-country header)
    card_country: str = ""  # the card's issuing country, from the gateway after payment
    decided: str = ""  # the country taxed
    agree: list[str] = Field(default_factory=list)  # the pieces naming `decided`
    conflict: bool = False  # fewer than two pieces name `decided`, and another piece names another country


class LineTax(Model):
    """One line's tax: `net + tax = gross`; the line's shown amount is `gross` (inclusive) or
    `net` (exclusive)."""

    net: Decimal
    rate: Decimal  # percent
    tax: Decimal
    gross: Decimal
    reverse_charge: bool = False


class TaxQuote(Model):
    """A tax calculation for a basket's line amounts, kept with the basket and reused by the
    checkout and the payment (never another tax at payment than the one shown)."""

    calculation: TaxCalculation
    inclusive: bool
    country: str = ""
    postal_code: str = ""
    amounts: list[Decimal]  # the line amounts it was calculated for (what pricing gave)
    lines: list[LineTax]
    reverse_charge: bool = False
    stripe_calculation_id: str | None = None

    @property
    def tax(self) -> Decimal:
        return sum((line.tax for line in self.lines), start=Decimal(0))

    def fits(self, amounts: list[Decimal], country: str, postal_code: str, inclusive: bool) -> bool:
        """Whether it still answers for these amounts and this buyer (recalculated otherwise)."""
        return (
            self.amounts == amounts
            and self.country == country
            and self.postal_code == postal_code
            and self.inclusive == inclusive
        )


class BuyerTax(Model):
    """What a basket knows of its buyer for tax: the country evidence so far and the VAT ID."""

    billing_country: str = ""
    billing_postal_code: str = ""
    ip_country: str = ""
    vat_id: str = ""
    vat_id_status: str = ""
    quote: TaxQuote | None = None


class PaymentTax(Model):
    """The tax a payment charged and why, stored on the payment (`payment.tax`)."""

    calculation: TaxCalculation
    inclusive: bool
    country: str = ""
    postal_code: str = ""
    currency: str
    lines: list[LineTax]
    net: Decimal
    tax: Decimal
    gross: Decimal
    reverse_charge: bool = False
    vat_id: str = ""
    vat_id_status: str = ""
    evidence: TaxEvidence = Field(default_factory=TaxEvidence)
    stripe_calculation_id: str | None = None
    stripe_transaction_id: str | None = None
