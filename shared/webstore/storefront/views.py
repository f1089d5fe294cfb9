"""The storefront interface's view mappers: domain models -> the wire shapes of `schemas`.

Pure: every input is passed in (the store view, the pricing context, settings).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from webstore import keys
from webstore.catalog import (
    Category,
    CommunityGoal,
    GoalStatus,
    Package,
    PackageType,
    Page,
    SidebarModule,
    Store,
)
from webstore.money import ZERO, round_money
from webstore.players import TIER_STATUSES, StoreStats, Tier
from webstore.pricing import PricingContext, package_price, price_of
from webstore.repo import plain_json
from webstore.repo.store import StoreView
from webstore.settings import Settings
from webstore.storefront import schemas

if TYPE_CHECKING:  # the basket's module is loaded by the routes that read a basket
    from webstore.basket import Basket

MAX_RECENT_PAYMENTS = 10


def iso(value: object) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


# --- the store and its pages ---------------------------------------------------------------


def webstore_view(store: Store) -> schemas.Webstore:
    return schemas.Webstore(
        id=store.id,
        description=store.description,
        name=store.name,
        webstore_url=store.webstore_url,
        currency=store.currency,
        lang=store.lang,
        logo=store.logo,
        platform_type=store.platform_type,
        platform_type_id=store.platform_type_id,
        disabled=store.disabled,
        created_at=iso(store.created_at),
        supports_usernames=store.supports_usernames,
        supports_gifting=store.supports_gifting,
    )


def page_views(store: Store, pages: list[Page]) -> list[schemas.CMSPage]:
    """The enabled pages, by id."""
    return [
        schemas.CMSPage(
            id=p.id,
            created_at=iso(p.created_at),
            updated_at=iso(p.updated_at),
            account_id=store.id,
            title=p.title,
            slug=p.slug,
            private=p.private,
            hidden=p.hidden,
            disabled=p.disabled,
            sequence=p.sequence,
            content=p.content,
        )
        for p in sorted(pages, key=lambda p: p.id)
        if not p.disabled
    ]


# --- packages and categories ---------------------------------------------------------------


def package_view(package: Package, view: StoreView, ctx: PricingContext) -> schemas.Package:
    category = view.category(package.category_id)
    price = package_price(package, ctx)
    return schemas.Package(
        id=package.id,
        ident=package.ident,
        name=package.name,
        description=package.description,
        image=package.image,
        type=package.type.value,
        category=schemas.CategoryRef(id=package.category_id, name=category.name if category else ""),
        base_price=price.base_price,
        sales_tax=price.sales_tax,
        total_price=price.total_price,
        currency=view.store.currency,
        discount=price.discount,
        disable_quantity=package.disable_quantity,
        disable_gifting=package.disable_gifting or not view.store.supports_gifting,
        expiration_date=iso(package.expiration_date) if package.expiration_date else None,
        media=[schemas.PackageMedia(**m.model_dump()) for m in package.media],
        order=package.order,
        slug=package.slug or str(package.id),
        user_limit=package.user_limit,
        creator_meta_data=package.creator_meta_data,
        options=package.options,
        variables=variable_views(package),
        created_at=iso(package.created_at),
        updated_at=iso(package.updated_at),
    )


def variable_views(package: Package) -> list[schemas.PackageVariable] | None:
    """A package's variables as objects (ids count from 1 in the package's order, and so do a
    dropdown's options); None (left out) when it has none."""
    views = []
    for i, name in enumerate(package.variables, start=1):
        options = package.variable_options.get(name)
        views.append(
            schemas.PackageVariable(
                id=i,
                identifier=name,
                description=name.replace("_", " ").capitalize(),
                type="dropdown" if options else "text",
                options=[
                    schemas.PackageVariableOption(
                        id=n, name=o.name, value=o.value, price=ZERO, percentage=ZERO
                    )
                    for n, o in enumerate(options, start=1)
                ]
                if options
                else None,
            )
        )
    return views or None


def dynamic_package_views(
    basket: Basket, category: Category, view: StoreView, ctx: PricingContext
) -> list[schemas.Package]:
    """A basket's dynamic packages in the Package shape (COMPAT: DynamicPackage = Package fields)."""
    out = []
    for dyn in basket.dynamic_packages:
        if dyn.category_id != category.id:
            continue
        price = price_of(dyn.price, dyn.id, dyn.category_id, ctx)
        out.append(
            schemas.Package(
                id=dyn.id,
                ident=keys.package_ident(dyn.category_id, dyn.id, dynamic=True),
                name=dyn.name,
                description=dyn.description,
                image=dyn.image_url,
                type="single",
                category=schemas.CategoryRef(id=category.id, name=category.name),
                base_price=price.base_price,
                sales_tax=price.sales_tax,
                total_price=price.total_price,
                currency=view.store.currency,
                discount=price.discount,
                disable_quantity=True,
                disable_gifting=True,
                expiration_date=None,
                media=[],
                order=0,
                slug=dyn.slug,
                user_limit=0,
                creator_meta_data=dict(dyn.custom),
                options=[],
                created_at=iso(basket.created_at),
                updated_at=iso(basket.updated_at),
            )
        )
    return out


def visible_packages(view: StoreView) -> list[Package]:
    return sorted((p for p in view.packages if not p.disabled), key=lambda p: (p.order, p.id))


def category_view(
    category: Category,
    view: StoreView,
    ctx: PricingContext,
    *,
    with_packages: bool,
    basket: Basket | None = None,
    parents: bool = True,
    tier: Tier | None = None,
) -> schemas.Category:
    parent = view.category(category.parent_id) if category.parent_id else None
    packages: list[schemas.Package] | None = None
    if with_packages:
        if category.dynamic:
            packages = dynamic_package_views(basket, category, view, ctx) if basket else []
        else:
            packages = [
                with_prorate_price(package_view(p, view, ctx), p, tier, view, ctx)
                for p in visible_packages(view)
                if p.category_id == category.id
            ]
    return schemas.Category(
        id=category.id,
        name=category.name,
        slug=category.slug,
        parent=category_view(parent, view, ctx, with_packages=False, parents=False)
        if parent and parents
        else None,
        tiered=category.tiered,
        active_tier=tier_view(tier, view, ctx) if tier else None,
        description=category.description,
        packages=packages,
        order=category.order,
        display_type=category.display_type,
        image_url=category.image_url,
        dynamic=category.dynamic,
    )


def tier_view(tier: Tier, view: StoreView, ctx: PricingContext) -> schemas.Tier | None:
    """SPEC's Tier; None when its package is no longer in the catalog (nothing to show)."""
    package = view.package(tier.package_id)
    if package is None:
        return None
    pending_id = tier.pending_downgrade_package_id
    pending = view.package(pending_id) if pending_id else None
    return schemas.Tier(
        id=tier.id,
        created_at=iso(tier.created_at),
        username_id=str(tier.username_id),
        package=package_view(package, view, ctx),
        active=tier.active,
        recurring_payment_reference=tier.recurring_payment_reference,
        next_payment_date=iso(tier.next_payment_date) if tier.next_payment_date else None,
        status=schemas.TierStatus(
            id=tier.status_id, description=TIER_STATUSES.get(tier.status_id, "unknown")
        ),
        pending_downgrade_package=schemas.PendingDowngrade(
            id=pending_id, name=pending.name if pending else ""
        )
        if pending_id
        else None,
    )


def with_prorate_price(
    shown: schemas.Package, package: Package, tier: Tier | None, view: StoreView, ctx: PricingContext
) -> schemas.Package:
    """`prorate_price` on the other packages of a category where the player has a tier."""
    current = view.package(tier.package_id) if tier else None
    if tier is None or current is None or package.id == current.id:
        return shown
    from webstore.basket import tier_prorate_price  # a tier holder's page only: the basket's pricing code

    shown.prorate_price = tier_prorate_price(tier, current, package, ctx.currency, ctx.now)
    return shown


# --- baskets -------------------------------------------------------------------------------


def basket_view(basket: Basket, settings: Settings) -> schemas.Basket:
    base = f"{settings.storefront_url}/checkout/{basket.ident}"
    return schemas.Basket(
        id=basket.ident,
        ident=basket.ident,
        complete=basket.complete,
        email=basket.email,
        username=basket.username,
        coupons=[schemas.BasketCoupon(code=c.code, coupon_code=c.code) for c in basket.coupons],
        giftcards=[schemas.BasketGiftCard(card_number=n) for n in basket.giftcards],
        creator_code=basket.creator_code,
        cancel_url=basket.cancel_url,
        complete_url=basket.complete_url,
        complete_auto_redirect=basket.complete_auto_redirect,
        country=basket.country,
        ip=basket.ip,
        username_id=basket.username_id,
        base_price=basket.base_price,
        sales_tax=basket.sales_tax,
        total_price=basket.total_price,
        currency=basket.currency,
        packages=[
            schemas.BasketPackage(
                id=line.package_id,
                ident=line.ident,
                description=line.description,
                image=line.image or "",  # a string (published BasketPackage): shops draw it as is
                name=line.name,
                slug=line.slug,
                in_basket=schemas.InBasket(
                    quantity=line.quantity,
                    price=line.unit_price,
                    gift_username_id=line.gift_username_id,
                    gift_username=line.gift_username,
                ),
                type=line.type.value,
                revenue_share=[],
                is_recurring=line.type is PackageType.SUBSCRIPTION,
            )
            for line in basket.lines
        ],
        custom=plain_json(basket.custom) if basket.custom is not None else None,
        links=schemas.BasketLinks(payment=f"{base}/receipt")
        if basket.paid
        else schemas.BasketLinks(checkout=base),
    )


def auth_link_view(store: Store, url: str) -> schemas.AuthLink:
    """The basket's auth link, named after the store's game (COMPAT)."""
    return schemas.AuthLink(name=store.game_type or store.platform_type, url=url)


# --- the sidebar ---------------------------------------------------------------------------


def _percentage(current: Decimal, target: Decimal) -> float:
    if target <= ZERO:
        return 100.0
    return float(min(current * 100 / target, Decimal(100)).quantize(Decimal("0.01")))


BAR_STYLE = "normal"  # the spec's progress bar styles: normal | striped
MINECRAFT_PORT = 25565


def server_address(address: str) -> tuple[str, int]:
    """`host[:port]` (IPv6 in brackets) split; the game's default port when none is given. Pure."""
    host, port = address.strip(), MINECRAFT_PORT
    if host.startswith("["):
        inside, _, rest = host[1:].partition("]")
        host = inside
        if rest.startswith(":") and rest[1:].isascii() and rest[1:].isdigit():
            port = int(rest[1:])
    elif host.count(":") == 1:
        name, _, number = host.partition(":")
        if number.isascii() and number.isdigit():
            host, port = name, int(number)
    return host, port if 0 < port < 65536 else MINECRAFT_PORT


def int_setting(module: SidebarModule, name: str) -> int | None:
    """A module's integer setting, or None when absent or not a number."""
    value = module.settings.get(name)
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class SidebarViews:
    """Each sidebar module's data (None when there is nothing to show), as of `ctx.now`."""

    def __init__(self, view: StoreView, featured: dict[int, Package], ctx: PricingContext) -> None:
        self.view = view
        self.currency = view.store.currency
        self.month = ctx.now.strftime("%Y-%m")
        self.stats = StoreStats.model_validate(
            {k: v for k, v in view.stats.items() if k in StoreStats.model_fields}
        )
        self.featured = featured
        self.ctx = ctx

    def modules(self) -> list[schemas.Module]:
        """The configured modules in order, each numbered by its place in the configuration
        (a stable id); a module with nothing to show is left out (the spec's `data` is an
        object). Modules run from the store's creation with no end."""
        configured = list(enumerate(self.view.store.sidebar, start=1))
        start_time = self.view.store.created_at.isoformat()
        shown = []
        for number, module in sorted(configured, key=lambda m: m[1].order):
            data = self.data(module)
            if data is not None:
                shown.append(
                    schemas.Module(
                        id=number,
                        type=module.type,
                        start_time=start_time,
                        end_time=None,
                        title=module.title,
                        order=module.order,
                        data=data,
                    )
                )
        return shown

    def data(self, module: SidebarModule) -> Any:
        return getattr(self, module.type)(module)

    def money(self, amount: Decimal) -> Decimal:
        return round_money(Decimal(amount), self.currency)

    def top_customer(self, module: SidebarModule) -> schemas.TopCustomer:
        """This month's top customer; empty names and a zero total before the first payment."""
        top = self.stats.top_customer
        if not top or self.stats.month != self.month or not top.get("username"):
            top = {"username": "", "total": 0}
        return schemas.TopCustomer(
            header=module.title,
            username=str(top["username"]),
            username_id=str(top.get("platform_id") or ""),
            total=self.money(Decimal(str(top.get("total", 0)))),
            currency=self.currency,
            month=self.month,
        )

    def recent_payments(self, module: SidebarModule) -> schemas.RecentPayments:
        limit = min(max(int_setting(module, "limit") or 5, 1), MAX_RECENT_PAYMENTS)
        return schemas.RecentPayments(
            header=module.title,
            payments=[
                schemas.RecentPayment(
                    username=p.username,
                    username_id=p.platform_id,
                    package=schemas.PackageName(name=p.package),
                    created_at=p.date.isoformat(),
                    price=round_money(p.amount, p.currency),
                    amount=round_money(p.amount, p.currency),
                    currency=p.currency,
                    date=p.date.isoformat(),
                )
                for p in self.stats.recent_payments[:limit]
            ],
        )

    def community_goal(self, module: SidebarModule) -> schemas.Goal | None:
        goal_id = int_setting(module, "goal_id")
        goals = [
            g for g in sorted(self.view.goals, key=lambda g: g.id) if g.status is not GoalStatus.DISABLED
        ]
        goal: CommunityGoal | None = next((g for g in goals if goal_id is None or g.id == goal_id), None)
        if goal is None:
            return None
        return schemas.Goal(
            header=module.title,
            bar_style=BAR_STYLE,
            bar_animated=False,
            percentage=_percentage(goal.current, goal.target),
            total_payments=self.money(goal.current),
            times_achieved=goal.times_achieved,
            id=goal.id,
            name=goal.name,
            description=goal.description,
            image=goal.image,
            target=self.money(goal.target),
            current=self.money(goal.current),
            status=goal.status.value,
            repeatable=goal.repeatable,
        )

    def payment_goal(self, module: SidebarModule) -> schemas.PaymentGoal:
        target = Decimal(str(module.settings.get("target") or 0))
        current = self.stats.month_revenue if self.stats.month == self.month else ZERO
        return schemas.PaymentGoal(
            header=module.title,
            bar_style=BAR_STYLE,
            bar_animated=False,
            percentage=_percentage(current, target),
            total=self.money(current),
            target=self.money(target),
            month=self.month,
            current=self.money(current),
            currency=self.currency,
        )

    def textbox(self, module: SidebarModule) -> schemas.TextBox:
        content = str(module.settings.get("content") or "")
        return schemas.TextBox(header=module.title, text=content, content=content)

    def featured_package(self, module: SidebarModule) -> schemas.FeaturedPackage | None:
        package = self.featured.get(int_setting(module, "package_id") or 0)
        if package is None or package.disabled:
            return None
        return schemas.FeaturedPackage(
            header=module.title, package=package_view(package, self.view, self.ctx)
        )

    def giftcard_balance(self, module: SidebarModule) -> schemas.GiftCardBalance:
        return schemas.GiftCardBalance(header=module.title, currency=self.currency)

    def server_status(self, module: SidebarModule) -> schemas.ServerStatus:
        address = str(module.settings.get("address") or "")
        hostname, port = server_address(address)
        return schemas.ServerStatus(
            header=module.title, hostname=hostname, port=port, online=False, players=None, address=address
        )
