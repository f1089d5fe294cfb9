"""What the checkout and the receipt show of a basket, as rows that visibly add up. Pure.

The lines are shown at their list price (unit price x quantity), then one row per discount
source (each sale, each coupon), the sales tax when it is added on top, the total, the gift
cards that pay part of it and the amount due:

    sum(line totals) = subtotal
    subtotal - sum(discounts) + tax added on top = total
    total - sum(gift cards) = amount due

The figures are the basket's own (`Basket.reprice`, the pricing the charge uses). How the
discount splits between its sources is found by pricing the basket again with the sales only,
then adding one coupon at a time (in the order pricing applies them): each step's extra
discount is that coupon's. The steps add up to the basket's discount by construction; should
the split ever differ (a receipt whose store changed its sales since), one "Discounts" row
naming every source shows the basket's figure instead, so the rows always add up.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from enum import StrEnum

from webstore import calendar
from webstore.basket import Basket, BasketLine
from webstore.basket_pricing import allocate, price_basket
from webstore.catalog import Coupon, DiscountType, PackageType, Sale, Store
from webstore.money import ZERO, round_money
from webstore.pricing import PricingContext, active_sales, discount_amount, sale_applies
from webstore.tax.countries import COUNTRIES
from webstore.tax.rates import is_eu


class RowKind(StrEnum):
    SUBTOTAL = "subtotal"
    DISCOUNT = "discount"
    TAX = "tax"
    TOTAL = "total"
    GIFT_CARD = "giftcard"
    DUE = "due"


@dataclass(frozen=True)
class AmountRow:
    """One row of the totals. `amount` is signed: a discount or a gift card is negative."""

    kind: RowKind
    label: str
    amount: Decimal
    note: str = ""  # e.g. "10% off", "does not apply to this basket"


@dataclass(frozen=True)
class Renewal:
    """What a subscription line commits the player to."""

    name: str
    price: Decimal  # what each renewal costs: list price x quantity, before tax (as the
    # subscription records it; a first payment's discounts do not renew)
    every: str  # "month", "3 months", "year": read after "every"
    renews_on: date | None  # None: the package has no billing period


@dataclass(frozen=True)
class LineView:
    name: str
    quantity: int
    unit_price: Decimal  # list price of one unit
    line_total: Decimal  # unit price x quantity, before discounts (rounded to add up to the subtotal)
    image: str | None = None  # only an http(s) URL
    gift_for: str | None = None
    details: tuple[tuple[str, str], ...] = ()  # what the player entered (package variables)
    renewal: Renewal | None = None


@dataclass(frozen=True)
class OrderSummary:
    currency: str
    lines: list[LineView]
    rows: list[AmountRow]  # subtotal, discounts, added tax, total, gift cards, amount due
    tax_included: Decimal = ZERO  # inclusive tax: part of the prices, not a row of its own
    tax_rate: Decimal = ZERO
    tax_label: str = "Sales tax"  # "VAT" in the EU
    reverse_charge: bool = False  # a business buyer's reverse charge: no VAT, the buyer accounts for it
    creator_code: str = ""
    renewals: list[Renewal] = field(default_factory=list)

    def row(self, kind: RowKind) -> AmountRow:
        return next(r for r in self.rows if r.kind is kind)

    @property
    def total(self) -> Decimal:
        return self.row(RowKind.TOTAL).amount

    @property
    def amount_due(self) -> Decimal:
        return self.row(RowKind.DUE).amount


def order_summary(basket: Basket, store: Store, now: datetime) -> OrderSummary:
    """The basket as the checkout shows it. `basket` is priced already (`Basket.reprice` as of
    `now`); `now` also dates the renewals (the receipt passes the time it was paid)."""
    currency = basket.currency
    exact = [line.base_price * line.quantity for line in basket.lines]
    totals = allocate(exact, basket.base_price, currency) if basket.lines else []
    lines = [_line_view(line, total, currency, now) for line, total in zip(basket.lines, totals, strict=True)]

    rows = [AmountRow(RowKind.SUBTOTAL, "Subtotal", basket.base_price)]
    rows += discount_rows(basket, store, now)
    # Added on top (exclusive) or part of the prices (inclusive): told by the basket's own
    # figures, so the rows add up even when the store's tax setting changed since.
    quote = basket.buyer_tax.quote
    exclusive = (
        bool(basket.sales_tax or (quote and quote.reverse_charge and not quote.inclusive))
        and basket.total_price == basket.base_price - basket.discount + basket.sales_tax
    )
    label, rate, note = tax_label(basket, store)
    if exclusive:
        rows.append(AmountRow(RowKind.TAX, label, basket.sales_tax, note))
    rows.append(AmountRow(RowKind.TOTAL, "Total", basket.total_price))
    for number, amount in basket.giftcard_split.items():
        if amount > 0:
            rows.append(AmountRow(RowKind.GIFT_CARD, f"Gift card {mask_card(number)}", -amount))
    rows.append(AmountRow(RowKind.DUE, "Amount due", basket.total_price - basket.giftcard_amount))
    return OrderSummary(
        currency=currency,
        lines=lines,
        rows=rows,
        tax_included=basket.sales_tax if not exclusive else ZERO,
        tax_rate=rate,
        tax_label=label,
        reverse_charge=bool(basket.buyer_tax.quote and basket.buyer_tax.quote.reverse_charge),
        creator_code=basket.creator_code,
        renewals=[line.renewal for line in lines if line.renewal is not None],
    )


def tax_label(basket: Basket, store: Store) -> tuple[str, Decimal, str]:
    """(label, rate, note) of the basket's tax: the rate of the buyer's country when it was
    calculated for one (webstore.tax), else the store's flat rate."""
    quote = basket.buyer_tax.quote
    if quote is None:
        return "Sales tax", store.tax.rate, f"{_percent(store.tax.rate)}%"
    label = "VAT" if is_eu(quote.country) else "Sales tax"
    rates = {line.rate for line in quote.lines}
    rate = rates.pop() if len(rates) == 1 else ZERO
    where = COUNTRIES.get(quote.country, quote.country)
    if quote.reverse_charge:
        return label, ZERO, "reverse charge"
    return label, rate, f"{where} {_percent(rate)}%" if where else f"{_percent(rate)}%"


def discount_rows(basket: Basket, store: Store, now: datetime) -> list[AmountRow]:
    """One row per sale and per coupon, adding up to the basket's discount (see the module)."""
    if not basket.lines:
        return []
    priced = basket.priced_lines()
    context = PricingContext(store=store, sales=store.sales, now=now)
    # Pricing applies the per-package coupons (method 0) first, then the basket-wide ones.
    ordered = sorted(basket.coupons, key=lambda c: c.discount_application_method != 0)

    def discount_with(coupons: Sequence[Coupon]) -> Decimal:
        return price_basket(priced, context, coupons=coupons, username=basket.username).discount

    by_sales = discount_with(())
    rows = _sale_rows(basket, context, by_sales)
    reached = by_sales
    for count, coupon in enumerate(ordered, start=1):
        step = discount_with(ordered[:count])
        taken = step - reached
        note = _discount_note(coupon) if taken else "does not apply to this basket"
        rows.append(AmountRow(RowKind.DISCOUNT, f"Coupon {coupon.code}", -taken, note))
        reached = step
    if reached != basket.discount:  # priced under other sales than now's: one row, the basket's figure
        sources = ["sales"] + [f"coupon {c.code}" for c in basket.coupons]
        return [AmountRow(RowKind.DISCOUNT, "Discounts", -basket.discount, ", ".join(sources))]
    return rows


def _sale_rows(basket: Basket, context: PricingContext, total: Decimal) -> list[AmountRow]:
    """The sales' share of the discount, one row per sale (a line takes its best sale only)."""
    if not total:
        return []
    taken: dict[int, Decimal] = {}
    sales: dict[int, Sale] = {}
    for line in basket.lines:
        best = _best_sale(line, context)
        if best is not None:
            sale, amount = best
            sales[sale.id] = sale
            taken[sale.id] = taken.get(sale.id, ZERO) + amount * line.quantity
    ids = list(taken)
    amounts = allocate([taken[i] for i in ids], total, basket.currency) if ids else []
    if len(ids) != 1 and sum(amounts, start=ZERO) != total:
        return [AmountRow(RowKind.DISCOUNT, "Sale", -total)]
    if len(ids) == 1:
        amounts = [total]
    return [
        AmountRow(RowKind.DISCOUNT, f"Sale: {sales[i].name}", -amount, _discount_note(sales[i]))
        for i, amount in zip(ids, amounts, strict=True)
    ]


def _best_sale(line: BasketLine, context: PricingContext) -> tuple[Sale, Decimal] | None:
    """The sale pricing gives the line (the one that takes off the most, as
    `pricing.best_sale_discount` picks it) and what it takes off one unit."""
    best: tuple[Sale, Decimal] | None = None
    for sale in active_sales(context.sales, context.now):
        if sale_applies(sale, line.package_id, line.category_id):
            amount = discount_amount(sale.discount, line.base_price)
            if amount > 0 and (best is None or amount > best[1]):
                best = (sale, amount)
    return best


def _discount_note(source: Coupon | Sale) -> str:
    discount = source.discount
    if discount.type is DiscountType.PERCENTAGE:
        return f"{_percent(discount.percentage)}% off"
    return ""


def _percent(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _line_view(line: BasketLine, total: Decimal, currency: str, now: datetime) -> LineView:
    image = line.image if line.image and line.image.startswith(("https://", "http://")) else None
    renewal = None
    if line.type is PackageType.SUBSCRIPTION:
        renewal = Renewal(
            name=line.name,
            price=round_money(line.base_price * line.quantity, currency),
            every=period_text(line.expiry_length, line.expiry_period),
            renews_on=_renewal_date(line, now),
        )
    return LineView(
        name=line.name,
        quantity=line.quantity,
        unit_price=round_money(line.base_price, currency),
        line_total=total,
        image=image,
        gift_for=line.gift_username,
        details=tuple(sorted(line.variable_data.items())),
        renewal=renewal,
    )


def _renewal_date(line: BasketLine, now: datetime) -> date | None:
    end = calendar.period_end(now, line.expiry_length, line.expiry_period)
    return end.date() if end is not None else None


def period_text(length: int, period: str) -> str:
    if length <= 0:
        return "billing period"
    return period if length == 1 else f"{length} {period}s"  # "every month", "every 3 months"


def mask_card(number: str) -> str:
    """A gift card's number is what spends it: show its last four characters only."""
    return f"••••{number[-4:]}"
