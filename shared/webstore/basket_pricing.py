"""A basket's price, pure: its lines after sales, per-package coupons (method 0), basket coupons
(methods 1 and 2), sales tax, then gift cards (they pay, they do not discount). No I/O; every
input is passed in. A package's own price (sales, tax) is `webstore.pricing`'s.

Money stays exact (Decimal) until `round_money`, applied once per figure at the end.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_DOWN, Decimal

from webstore.catalog import BasketType, Coupon, PackageType, TaxMode
from webstore.money import ZERO, quantum, round_money
from webstore.pricing import PricingContext, best_sale_discount, covers, discount_amount, tax_on


@dataclass(frozen=True)
class PricedLine:
    """A basket line as pricing sees it: the list price of one unit, and how many."""

    package_id: int
    category_id: int
    list_price: Decimal
    quantity: int
    type: PackageType = PackageType.SINGLE
    dynamic: bool = False


@dataclass(frozen=True)
class LinePrice:
    unit_price: Decimal  # one unit after sales and per-package coupons, before tax
    line_price: Decimal  # unit_price x quantity


@dataclass(frozen=True)
class BasketPrice:
    lines: list[LinePrice]
    base_price: Decimal  # list prices x quantities
    discount: Decimal  # what sales and coupons take off base_price
    sales_tax: Decimal
    total_price: Decimal  # what the basket costs, tax included
    giftcard_amount: Decimal  # the part of total_price gift cards pay
    giftcards: dict[str, Decimal] = field(default_factory=dict)  # card number -> what it pays
    line_taxes: list[Decimal] = field(default_factory=list)  # per line (empty: the flat tax on the whole)

    @property
    def amount_due(self) -> Decimal:
        return self.total_price - self.giftcard_amount


def basket_type_matches(basket_type: BasketType, lines: Sequence[PricedLine]) -> bool:
    """A basket holding a subscription is a subscription basket; an empty one is not typed yet."""
    if basket_type is BasketType.BOTH or not lines:
        return True
    has_subscription = any(line.type is PackageType.SUBSCRIPTION for line in lines)
    return has_subscription == (basket_type is BasketType.SUBSCRIPTION)


def value_after_sales(lines: Sequence[PricedLine], ctx: PricingContext) -> Decimal:
    """What the basket is worth before coupons: the figure a coupon's minimum is compared with."""
    return sum(
        (
            (line.list_price - best_sale_discount(line.list_price, line.package_id, line.category_id, ctx))
            * line.quantity
            for line in lines
        ),
        start=ZERO,
    )


def coupon_refusal(
    coupon: Coupon,
    lines: Sequence[PricedLine],
    ctx: PricingContext,
    *,
    username: str | None,
    redemptions: int | None = None,
    player_redemptions: int | None = None,
) -> str | None:
    """Why `coupon` cannot be used on this basket now, or None when it can.

    `redemptions` (all players) and `player_redemptions` (this basket's player) are checked
    when the caller knows them; payment enforces both limits in the database either way.
    """
    if coupon.start_date is not None and ctx.now < coupon.start_date:
        return "This coupon is not valid yet"
    if not coupon.expire_never and coupon.expire_date is not None and ctx.now >= coupon.expire_date:
        return "This coupon has expired"
    if not coupon.redeem_unlimited and redemptions is not None and redemptions >= coupon.expire_limit:
        return "This coupon has reached its redemption limit"
    if coupon.username:
        if not username:
            return "This coupon is for one player only; log in first"
        if coupon.username.lower() != username.lower():
            return "This coupon is for another player"
    if coupon.user_limit and player_redemptions is not None and player_redemptions >= coupon.user_limit:
        return "You have already used this coupon as often as it allows"
    if not basket_type_matches(coupon.basket_type, lines):
        kind = "subscriptions" if coupon.basket_type is BasketType.SUBSCRIPTION else "one-off purchases"
        return f"This coupon is for baskets of {kind} only"
    minimum = coupon.minimum
    if minimum > 0 and value_after_sales(lines, ctx) < minimum:
        return f"The basket must be worth at least {round_money(minimum, ctx.currency)} {ctx.currency}"
    return None


def price_basket(
    lines: Sequence[PricedLine],
    ctx: PricingContext,
    *,
    coupons: Sequence[Coupon] = (),
    giftcards: Sequence[tuple[str, Decimal]] = (),
    username: str | None = None,
    line_taxes: Callable[[list[Decimal]], Sequence[Decimal]] | None = None,
) -> BasketPrice:
    """The price of a basket. Coupons that do not qualify (any more) take nothing off; gift
    cards pay in the order given, each up to its balance, never more than the total.

    `line_taxes`: the tax port's answer for the lines' shown amounts (one tax each, rounded per
    line: webstore.tax); without it the store's flat rate taxes the basket's net as a whole."""
    currency = ctx.currency
    usable = [c for c in coupons if coupon_refusal(c, lines, ctx, username=username) is None]

    units = [
        line.list_price - best_sale_discount(line.list_price, line.package_id, line.category_id, ctx)
        for line in lines
    ]
    for coupon in usable:
        if coupon.discount_application_method == 0:  # each package: off every unit it covers
            for i, line in enumerate(lines):
                if covers(coupon.effective, line.package_id, line.category_id, dynamic=line.dynamic):
                    units[i] -= discount_amount(coupon.discount, units[i])
    subtotal = sum((unit * line.quantity for unit, line in zip(units, lines, strict=True)), start=ZERO)

    exact = [unit * line.quantity for unit, line in zip(units, lines, strict=True)]
    basket_discount = ZERO
    for coupon in usable:
        if coupon.discount_application_method == 0:
            continue
        covered = [
            i
            for i, line in enumerate(lines)
            if covers(coupon.effective, line.package_id, line.category_id, dynamic=line.dynamic)
        ]
        current = sum((units[i] * lines[i].quantity for i in covered), start=ZERO)
        if coupon.discount_application_method == 1:  # on the covered total before sales
            basis = sum((lines[i].list_price * lines[i].quantity for i in covered), start=ZERO)
        else:  # 2: on the covered total after sales
            basis = current
        taken = max(min(discount_amount(coupon.discount, basis), current, subtotal - basket_discount), ZERO)
        basket_discount += taken
        _take_proportionally(exact, covered, taken)

    net = subtotal - basket_discount
    tax, _ = tax_on(net, ctx.store)
    base = sum((line.list_price * line.quantity for line in lines), start=ZERO)
    # What each line shows, to the cent, adding up exactly to the rounded net (largest
    # remainder): the shown lines, the discount and the tax always sum to the total charged.
    line_prices = allocate(exact, round_money(net, currency), currency)
    net_shown = sum(line_prices, start=ZERO)
    exclusive = ctx.store.tax.mode is TaxMode.EXCLUSIVE
    taxes = list(line_taxes(line_prices)) if line_taxes is not None else []
    tax_shown = sum(taxes, start=ZERO) if line_taxes is not None else round_money(tax, currency)
    total_price = net_shown + tax_shown if exclusive else net_shown
    base_shown = round_money(base, currency)

    paid: dict[str, Decimal] = {}
    covered_by_cards = ZERO
    for number, balance in giftcards:
        pays = min(round_money(max(balance, ZERO), currency), total_price - covered_by_cards)
        paid[number] = pays
        covered_by_cards += pays

    return BasketPrice(
        lines=[
            LinePrice(round_money(unit, currency), shown)
            for unit, shown in zip(units, line_prices, strict=True)
        ],
        base_price=base_shown,
        discount=base_shown - net_shown,
        sales_tax=tax_shown,
        total_price=total_price,
        giftcard_amount=covered_by_cards,
        giftcards=paid,
        line_taxes=taxes,
    )


def _take_proportionally(amounts: list[Decimal], indexes: Sequence[int], taken: Decimal) -> None:
    """Take `taken` off the lines at `indexes`, in proportion to what each is worth (exact)."""
    whole = sum((amounts[i] for i in indexes), start=ZERO)
    if whole <= 0 or taken <= 0:
        return
    for i in indexes:
        amounts[i] -= taken * amounts[i] / whole


def allocate(exact: Sequence[Decimal], total: Decimal, currency: str) -> list[Decimal]:
    """Exact amounts rounded to the currency so that they add up to `total` exactly: each is
    rounded down, and the cents left over go one each to the largest remainders (ties: the
    first line)."""
    step = quantum(currency)
    floors = [max(amount, ZERO).quantize(step, rounding=ROUND_DOWN) for amount in exact]
    left = int((total - sum(floors, start=ZERO)) / step)
    order = sorted(range(len(exact)), key=lambda i: (-(max(exact[i], ZERO) - floors[i]), i))
    for i in order[: max(left, 0)] if order else []:
        floors[i] += step
    if left > len(order) and order:  # cannot happen for amounts that sum to `total`; stay exact
        floors[order[0]] += step * (left - len(order))
    return floors
