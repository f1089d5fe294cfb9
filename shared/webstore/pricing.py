"""Prices, pure: a package's price with its sales and tax, a tier's upgrade. No I/O; every input
is passed in. A basket's totals (coupons, gift cards) are `webstore.basket_pricing`'s, apart so
that a page showing prices loads none of the basket's.

Money stays exact (Decimal) until `round_money`, applied once per figure at the end.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import NamedTuple

from webstore.catalog import Discount, DiscountType, Effective, Package, Sale, Store, TaxMode
from webstore.money import ZERO, percent_of, round_money


class PricingContext(NamedTuple):
    store: Store
    sales: list[Sale]
    now: datetime

    @property
    def currency(self) -> str:
        return self.store.currency


class PackagePrice(NamedTuple):
    base_price: Decimal
    discount: Decimal
    sales_tax: Decimal
    total_price: Decimal


def active_sales(sales: list[Sale], now: datetime) -> list[Sale]:
    return [s for s in sales if s.start <= now < s.expire]


def sale_applies(sale: Sale, package_id: int, category_id: int) -> bool:
    return covers(sale.effective, package_id, category_id)


def covers(effective: Effective, package_id: int, category_id: int, *, dynamic: bool = False) -> bool:
    """Whether a sale or coupon reaches a package. Package lists name catalog packages, which a
    basket's dynamic packages (their own id space) never are."""
    if effective.type == "package":
        return not dynamic and package_id in effective.packages
    if effective.type == "category":
        return category_id in effective.categories
    return True  # all / cart: everything


def discount_amount(discount: Discount, amount: Decimal) -> Decimal:
    """What a discount takes off `amount`: never more than the amount itself."""
    if discount.type is DiscountType.PERCENTAGE:
        taken = percent_of(amount, discount.percentage)
    else:
        taken = discount.value
    return min(max(taken, ZERO), amount)


def best_sale_discount(price: Decimal, package_id: int, category_id: int, ctx: PricingContext) -> Decimal:
    """Sales do not stack: the one that takes off the most wins."""
    return max(
        (
            discount_amount(s.discount, price)
            for s in active_sales(ctx.sales, ctx.now)
            if sale_applies(s, package_id, category_id)
        ),
        default=ZERO,
    )


def tax_on(net: Decimal, store: Store) -> tuple[Decimal, Decimal]:
    """(sales tax, total) for an amount, under the store's tax mode."""
    rate = store.tax.rate
    if store.tax.mode is TaxMode.EXCLUSIVE:
        tax = percent_of(net, rate)
        return tax, net + tax
    if store.tax.mode is TaxMode.INCLUSIVE:
        tax = net - net * Decimal(100) / (Decimal(100) + rate)
        return tax, net
    return ZERO, net


def package_price(package: Package, ctx: PricingContext) -> PackagePrice:
    return price_of(package.price, package.id, package.category_id, ctx)


def price_of(price: Decimal, package_id: int, category_id: int, ctx: PricingContext) -> PackagePrice:
    discount = best_sale_discount(price, package_id, category_id, ctx)
    tax, total = tax_on(price - discount, ctx.store)
    currency = ctx.currency
    return PackagePrice(
        base_price=round_money(price, currency),
        discount=round_money(discount, currency),
        sales_tax=round_money(tax, currency),
        total_price=round_money(total, currency),
    )


# --- tier proration (players engineer; keep this section last) ------------------------------


def prorate_price(
    current_price: Decimal,
    new_price: Decimal,
    *,
    now: datetime,
    period_start: datetime | None,
    period_end: datetime | None,
    currency: str,
) -> Decimal:
    """What upgrading from the current tier's package to another costs now.

    The price difference times the unused fraction of the current billing period
    (`(period_end - now) / (period_end - period_start)`, clamped to 0..1): the player already paid
    the current package for that remainder. Never below 0 (a downgrade costs nothing now; it
    takes effect at the next renewal). Without a known period the whole difference is due.
    """
    difference = max(new_price - current_price, ZERO)
    if difference == ZERO:
        return round_money(ZERO, currency)
    if period_start is None or period_end is None or period_end <= period_start:
        return round_money(difference, currency)
    total = Decimal(str((period_end - period_start).total_seconds()))
    remaining = Decimal(str((period_end - now).total_seconds()))
    fraction = min(max(remaining / total, ZERO), Decimal(1))
    return round_money(difference * fraction, currency)
