"""The tax of a recorded payment, line by line: the ONE place the records side (invoices,
credit notes, the tax report) reads a payment's tax data (docs/tax.md, "Where the records read
tax").

A payment the checkout taxed carries what it calculated (`payment.tax`, docs/tax-model.md: per
line net, rate, tax and gross, the buyer's country as decided from the evidence, the VAT ID and
reverse charge): that is read as it is. A payment without it (recorded before, or by a source
that does not tax: createPayment, renewals) records its lines' prices (net of tax when the
store adds tax on top, tax included when its prices include it), what the buyer paid
(`amount`, plus gift cards) and the buyer's country. From those:

- tax added on top: the difference between what was charged (amount + gift cards) and the
  lines, shared over the lines in proportion (largest remainder, to the cent); its rate is the
  store's rate when the store still adds tax on top, else the difference as a percentage;
- prices that include tax: each line's tax at the store's rate, `price - price x 100 / (100 + rate)`;
- no tax: none.

Nothing else in the records reads tax: a new field of `payment.tax` is read here only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal

from webstore.basket_pricing import allocate
from webstore.catalog import Tax, TaxMode
from webstore.money import ZERO, round_money
from webstore.repo.payments import PaymentRecord

HUNDRED = Decimal(100)


@dataclass(frozen=True)
class TaxLine:
    name: str
    quantity: int
    net: Decimal  # before tax
    rate: Decimal  # percent
    tax: Decimal
    gross: Decimal  # net + tax


@dataclass(frozen=True)
class PaymentTaxes:
    currency: str
    lines: list[TaxLine]
    country: str  # the buyer's country (ISO 3166-1 alpha-2), "" when unknown
    vat_id: str = ""  # the business buyer's VAT ID
    vat_id_status: str = ""  # valid | invalid | unverified (webstore.tax.vat_ids.VatIdStatus)
    reverse_charge: bool = False  # the buyer accounts for the VAT (B2B across EU borders)
    inclusive: bool = False  # the prices shown included the tax

    @property
    def net(self) -> Decimal:
        return sum((line.net for line in self.lines), start=ZERO)

    @property
    def tax(self) -> Decimal:
        return sum((line.tax for line in self.lines), start=ZERO)

    @property
    def gross(self) -> Decimal:
        return sum((line.gross for line in self.lines), start=ZERO)

    def by_rate(self) -> dict[Decimal, tuple[Decimal, Decimal]]:
        """rate → (net, tax) of the lines at that rate."""
        found: dict[Decimal, tuple[Decimal, Decimal]] = {}
        for line in self.lines:
            net, tax = found.get(line.rate, (ZERO, ZERO))
            found[line.rate] = (net + line.net, tax + line.tax)
        return found


@dataclass(frozen=True)
class RefundTaxes:
    """What one refund gives back, split as the payment was: net and tax per rate."""

    gross: Decimal
    net: Decimal
    tax: Decimal
    by_rate: dict[Decimal, tuple[Decimal, Decimal]] = field(default_factory=dict)


def payment_taxes(payment: PaymentRecord, store_tax: Tax) -> PaymentTaxes:
    """The payment's lines with their net, rate and tax (see the module's docstring)."""
    if payment.tax is not None and len(payment.tax.lines) == len(payment.lines):
        return _recorded(payment)
    currency = payment.currency
    charged = payment.amount + sum((g.amount for g in payment.giftcards), start=ZERO)
    prices = [line.price for line in payment.lines]
    listed = sum(prices, start=ZERO)
    names = [(line.name, line.quantity) for line in payment.lines]
    if charged > listed and listed > 0:  # tax added on top
        added = charged - listed
        if store_tax.mode is TaxMode.EXCLUSIVE and store_tax.rate > 0:
            rate = store_tax.rate
        else:
            rate = (added * HUNDRED / listed).quantize(Decimal("0.01"))
        taxes = allocate([price * added / listed for price in prices], added, currency)
        lines = [
            TaxLine(name, quantity, price, rate, tax, price + tax)
            for (name, quantity), price, tax in zip(names, prices, taxes, strict=True)
        ]
        return PaymentTaxes(currency, lines, payment.country)
    if store_tax.mode is TaxMode.INCLUSIVE and store_tax.rate > 0:
        rate = store_tax.rate
        lines = []
        for (name, quantity), price in zip(names, prices, strict=True):
            net = round_money(price * HUNDRED / (HUNDRED + rate), currency)
            lines.append(TaxLine(name, quantity, net, rate, price - net, price))
        return PaymentTaxes(currency, lines, payment.country, inclusive=True)
    lines = [
        TaxLine(name, quantity, price, ZERO, ZERO, price)
        for (name, quantity), price in zip(names, prices, strict=True)
    ]
    return PaymentTaxes(currency, lines, payment.country)


def _recorded(payment: PaymentRecord) -> PaymentTaxes:
    """The tax the checkout calculated and stored on the payment (`payment.tax`,
    docs/tax-model.md): its lines, the buyer's country as decided, VAT ID, reverse charge."""
    recorded = payment.tax
    assert recorded is not None
    lines = [
        TaxLine(line.name, line.quantity, taxed.net, taxed.rate, taxed.tax, taxed.gross)
        for line, taxed in zip(payment.lines, recorded.lines, strict=True)
    ]
    return PaymentTaxes(
        payment.currency,
        lines,
        recorded.country or payment.country,
        vat_id=recorded.vat_id,
        vat_id_status=recorded.vat_id_status,
        reverse_charge=recorded.reverse_charge,
        inclusive=recorded.inclusive,
    )


def refund_taxes(taxes: PaymentTaxes, payment: PaymentRecord, index: int) -> RefundTaxes:
    """The net and tax the refund `payment.refunds[index]` gives back, in proportion to the
    payment's own split; the refund that completes the payment takes exactly what is left, so
    the credit notes of a payment add up to its invoice to the cent."""
    refund = payment.refunds[index]
    charged = taxes.gross
    rates = taxes.by_rate()
    if charged <= 0:
        return RefundTaxes(refund.amount, refund.amount, ZERO)
    before = [refund_taxes(taxes, payment, i) for i in range(index)]
    by_rate: dict[Decimal, tuple[Decimal, Decimal]] = {}
    last = refund.full  # cancels what is left of the invoice (a gift card's part included)
    for rate, (net, tax) in rates.items():
        if last:
            given_tax = sum((r.by_rate.get(rate, (ZERO, ZERO))[1] for r in before), start=ZERO)
            given_net = sum((r.by_rate.get(rate, (ZERO, ZERO))[0] for r in before), start=ZERO)
            by_rate[rate] = (net - given_net, tax - given_tax)
        else:
            share = refund.amount / charged
            part_tax = round_money(tax * share, taxes.currency)
            part_gross = round_money((net + tax) * share, taxes.currency)
            by_rate[rate] = (part_gross - part_tax, part_tax)
    if not last:  # rounding per rate: keep the parts summing to the refund
        drift = refund.amount - sum((n + t for n, t in by_rate.values()), start=ZERO)
        if drift and by_rate:
            top = max(by_rate, key=lambda r: by_rate[r][0])
            n, t = by_rate[top]
            by_rate[top] = (n + drift, t)
    net = sum((n for n, _ in by_rate.values()), start=ZERO)
    tax = sum((t for _, t in by_rate.values()), start=ZERO)
    return RefundTaxes(net + tax, net, tax, by_rate)
