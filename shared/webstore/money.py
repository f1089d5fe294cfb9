"""Exact money: Decimal throughout, rounded to the currency's minor unit once, at the end."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

# ISO 4217 minor units for the currencies stores sell in.
MINOR_UNITS: dict[str, int] = {
    "USD": 2, "EUR": 2, "GBP": 2, "AUD": 2, "CAD": 2, "NZD": 2, "CHF": 2, "SEK": 2, "NOK": 2,
    "DKK": 2, "PLN": 2, "CZK": 2, "HUF": 2, "BRL": 2, "MXN": 2, "TRY": 2, "RUB": 2, "INR": 2,
    "ZAR": 2, "SGD": 2, "HKD": 2, "CNY": 2, "PHP": 2, "MYR": 2, "THB": 2, "IDR": 2, "RON": 2,
    "JPY": 0, "KRW": 0, "VND": 0, "CLP": 0, "ISK": 0,
    "KWD": 3, "BHD": 3, "JOD": 3, "OMR": 3, "TND": 3,
}  # fmt: skip

SYMBOLS: dict[str, str] = {
    "USD": "$", "EUR": "€", "GBP": "£", "AUD": "$", "CAD": "$", "NZD": "$", "JPY": "¥",
    "BRL": "R$", "INR": "₹", "KRW": "₩", "PLN": "zł", "TRY": "₺", "RUB": "₽", "CHF": "CHF",
}  # fmt: skip

ZERO = Decimal(0)
HUNDRED = Decimal(100)


def quantum(currency: str) -> Decimal:
    return Decimal(1).scaleb(-MINOR_UNITS.get(currency.upper(), 2))


def round_money(amount: Decimal, currency: str) -> Decimal:
    """Round half up to the currency's minor unit: the one place money is rounded."""
    return amount.quantize(quantum(currency), rounding=ROUND_HALF_UP)


def symbol(currency: str) -> str:
    return SYMBOLS.get(currency.upper(), currency.upper())


def percent_of(amount: Decimal, percent: Decimal) -> Decimal:
    return amount * percent / HUNDRED


def display(amount: Decimal, currency: str) -> str:
    """`$4.99 USD`, `-$1.00 USD` (a real minus sign): an amount as players read it (the
    `money` filter of the HTML templates)."""
    sign = "\u2212" if amount < 0 else ""
    return f"{sign}{symbol(currency)}{round_money(abs(amount), currency)} {currency}"
