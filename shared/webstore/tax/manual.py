"""The manual-rates adapter: the owner's rate for the buyer's country, one tax per line.

Rounding is per line, half up to the currency's minor unit, as Stripe Tax rounds: an
exclusive line's tax is `amount x rate / 100`, an inclusive line's is the part of its amount
that is tax, `amount x rate / (100 + rate)`. The basket's tax is the sum of its lines' taxes.
Pure; the sandbox and the local stack use it.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from webstore.catalog import Tax, TaxCalculation
from webstore.money import HUNDRED, ZERO, round_money
from webstore.tax.model import LineTax, TaxQuote


def line_tax(amount: Decimal, rate: Decimal, *, inclusive: bool, currency: str) -> LineTax:
    if inclusive:
        tax = round_money(amount * rate / (HUNDRED + rate), currency)
        return LineTax(net=amount - tax, rate=rate, tax=tax, gross=amount)
    tax = round_money(amount * rate / HUNDRED, currency)
    return LineTax(net=amount, rate=rate, tax=tax, gross=amount + tax)


def rate_for(settings: Tax, country: str) -> Decimal:
    """The rate a buyer of `country` pays: the flat rate, or the table's (0 when not listed)."""
    if not settings.charged:
        return ZERO
    if settings.calculation is TaxCalculation.FLAT:
        return settings.rate
    return settings.rates.get(country.upper(), ZERO) if country else ZERO


def quote(
    settings: Tax,
    amounts: Sequence[Decimal],
    *,
    country: str,
    currency: str,
    postal_code: str = "",
    reverse_charge: bool = False,
) -> TaxQuote:
    """The tax of each line amount for a buyer of `country` (0% and flagged on reverse charge)."""
    rate = ZERO if reverse_charge else rate_for(settings, country)
    return TaxQuote(
        calculation=settings.calculation,
        inclusive=settings.inclusive,
        country=country,
        postal_code=postal_code,
        amounts=list(amounts),
        lines=[
            line_tax(amount, rate, inclusive=settings.inclusive, currency=currency).model_copy(
                update={"reverse_charge": reverse_charge}
            )
            for amount in amounts
        ],
        reverse_charge=reverse_charge,
    )
