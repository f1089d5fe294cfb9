"""The tax a payment stores (`payment.tax`, docs/tax-model.md), from the basket it paid for."""

from __future__ import annotations

from decimal import Decimal

from webstore.basket import Basket
from webstore.basket_pricing import allocate
from webstore.catalog import TaxCalculation
from webstore.money import ZERO
from webstore.tax.evidence import decide
from webstore.tax.model import LineTax, PaymentTax


def payment_tax(basket: Basket, card_country: str = "", *, flat_rate: Decimal = ZERO) -> PaymentTax | None:
    """What the basket's prices hold of tax, line by line, with the buyer's evidence; None when
    the basket was not taxed at all (no quote and no flat tax)."""
    buyer = basket.buyer_tax
    quote = buyer.quote
    evidence = decide(
        buyer.billing_country,
        buyer.ip_country,
        card_country,
        billing_postal_code=buyer.billing_postal_code,
        taxed=quote.country if quote is not None else None,
    )
    if quote is not None:
        lines = quote.lines
        calculation, inclusive = quote.calculation, quote.inclusive
        country, postal, reverse = quote.country, quote.postal_code, quote.reverse_charge
    elif basket.sales_tax:  # the flat rate, taxed on the basket as a whole: shared out by line
        inclusive = basket.total_price != basket.base_price - basket.discount + basket.sales_tax
        amounts = [line.line_price for line in basket.lines]
        taxes = allocate(amounts, basket.sales_tax, basket.currency) if amounts else []
        lines = [
            LineTax(net=a - t, rate=flat_rate, tax=t, gross=a)
            if inclusive
            else LineTax(net=a, rate=flat_rate, tax=t, gross=a + t)
            for a, t in zip(amounts, taxes, strict=True)
        ]
        calculation, country, postal, reverse = TaxCalculation.FLAT, basket.country, "", False
    else:
        return None
    total = sum((line.tax for line in lines), start=Decimal(0))
    return PaymentTax(
        calculation=calculation,
        inclusive=inclusive,
        country=country,
        postal_code=postal,
        currency=basket.currency,
        lines=list(lines),
        net=sum((line.net for line in lines), start=Decimal(0)),
        tax=total,
        gross=sum((line.gross for line in lines), start=Decimal(0)),
        reverse_charge=reverse,
        vat_id=buyer.vat_id,
        vat_id_status=buyer.vat_id_status,
        evidence=evidence,
        stripe_calculation_id=quote.stripe_calculation_id if quote is not None else None,
    )
