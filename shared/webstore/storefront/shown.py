"""What the storefront shows of a package and of the sidebar, as plain data (dicts of Python
values, Decimals for money): the one computation behind the wire views (`storefront.views`
wraps these in `schemas`' models) and the shop's pages (which use them as they are, without
building the wire models: the cold start). Each dict holds its model's fields in the model's
order, leaving out what the model's serializer leaves out (a package's `variables` when it has
none, a text variable's `options`), so that `as_json` of it equals the model's JSON dump.

Pure: every input is passed in (the store view, the pricing context).
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from webstore.catalog import Category, CommunityGoal, GoalStatus, Package, SidebarModule
from webstore.money import ZERO, round_money
from webstore.players import TIER_STATUSES, StoreStats, Tier
from webstore.pricing import PricingContext, package_price
from webstore.repo.store import StoreView

MAX_RECENT_PAYMENTS = 10
BAR_STYLE = "normal"  # the spec's progress bar styles: normal | striped
MINECRAFT_PORT = 25565


def iso(value: object) -> str:
    return value.isoformat() if hasattr(value, "isoformat") else str(value)


def as_json(value: Any) -> Any:
    """Plain data as the wire models dump it in JSON mode: money (a Decimal) as a number."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, Decimal):
        return float(value)
    return value


# --- packages ------------------------------------------------------------------------------


def visible_packages(view: StoreView) -> list[Package]:
    return sorted((p for p in view.packages if not p.disabled), key=lambda p: (p.order, p.id))


def category_packages(category: Category, view: StoreView) -> list[Package]:
    """A (not dynamic) category's packages for sale, in order."""
    return [p for p in visible_packages(view) if p.category_id == category.id]


def prorate_price(
    package: Package, tier: Tier | None, view: StoreView, ctx: PricingContext
) -> Decimal | None:
    """What moving to `package` costs a player whose tier in its category is `tier` (None: no
    tier, the tier's package is gone, or it is this package)."""
    current = view.package(tier.package_id) if tier else None
    if tier is None or current is None or package.id == current.id:
        return None
    from webstore.basket import tier_prorate_price  # a tier holder's page only: the basket's pricing code

    return tier_prorate_price(tier, current, package, ctx.currency, ctx.now)


def package_data(package: Package, view: StoreView, ctx: PricingContext) -> dict[str, Any]:
    """A package as the storefront shows it (`schemas.Package`): priced for `ctx` (sales)."""
    category = view.category(package.category_id)
    price = package_price(package, ctx)
    data: dict[str, Any] = {
        "id": package.id,
        "ident": package.ident,
        "name": package.name,
        "description": package.description,
        "image": package.image,
        "type": package.type.value,
        "category": {"id": package.category_id, "name": category.name if category else ""},
        "base_price": price.base_price,
        "sales_tax": price.sales_tax,
        "total_price": price.total_price,
        "currency": view.store.currency,
        "prorate_price": None,
        "discount": price.discount,
        "disable_quantity": package.disable_quantity,
        "disable_gifting": package.disable_gifting or not view.store.supports_gifting,
        "expiration_date": iso(package.expiration_date) if package.expiration_date else None,
        "media": [
            {"type": m.type, "name": m.name, "url": m.url, "featured": m.featured, "primary": m.primary}
            for m in package.media
        ],
        "order": package.order,
        "slug": package.slug or str(package.id),
        "user_limit": package.user_limit,
        "creator_meta_data": dict(package.creator_meta_data),
        "options": list(package.options),
        "variables": variable_data(package),
        "created_at": iso(package.created_at),
        "updated_at": iso(package.updated_at),
        "vip_status": None,
    }
    if not data["variables"]:
        del data["variables"]
    return data


def tier_data(tier: Tier, view: StoreView, ctx: PricingContext) -> dict[str, Any] | None:
    """SPEC's Tier (`schemas.Tier`); None when its package is no longer in the catalog (nothing
    to show)."""
    package = view.package(tier.package_id)
    if package is None:
        return None
    pending_id = tier.pending_downgrade_package_id
    pending = view.package(pending_id) if pending_id else None
    return {
        "id": tier.id,
        "created_at": iso(tier.created_at),
        "username_id": str(tier.username_id),
        "package": package_data(package, view, ctx),
        "active": tier.active,
        "recurring_payment_reference": tier.recurring_payment_reference,
        "next_payment_date": iso(tier.next_payment_date) if tier.next_payment_date else None,
        "status": {"id": tier.status_id, "description": TIER_STATUSES.get(tier.status_id, "unknown")},
        "pending_downgrade_package": {"id": pending_id, "name": pending.name if pending else ""}
        if pending_id
        else None,
    }


def variable_data(package: Package) -> list[dict[str, Any]] | None:
    """A package's variables as objects (ids count from 1 in the package's order, and so do a
    dropdown's options); None (left out) when it has none."""
    views = []
    for i, name in enumerate(package.variables, start=1):
        options = package.variable_options.get(name)
        variable: dict[str, Any] = {
            "id": i,
            "identifier": name,
            "description": name.replace("_", " ").capitalize(),
            "type": "dropdown" if options else "text",
        }
        if options:
            variable["options"] = [
                {"id": n, "name": o.name, "value": o.value, "price": ZERO, "percentage": ZERO}
                for n, o in enumerate(options, start=1)
            ]
        views.append(variable)
    return views or None


# --- the sidebar ---------------------------------------------------------------------------


def _percentage(current: Decimal, target: Decimal) -> float:
    if target <= ZERO:
        return 100.0
    return float(min(current * 100 / target, Decimal(100)).quantize(Decimal("0.01")))


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


class SidebarData:
    """Each sidebar module's data (None when there is nothing to show), as of `ctx.now`: the
    fields of its `schemas` model (`Module`, and `TopCustomer`, `Goal`, ... for its `data`)."""

    def __init__(self, view: StoreView, featured: dict[int, Package], ctx: PricingContext) -> None:
        self.view = view
        self.currency = view.store.currency
        self.month = ctx.now.strftime("%Y-%m")
        self.stats = StoreStats.model_validate(
            {k: v for k, v in view.stats.items() if k in StoreStats.model_fields}
        )
        self.featured = featured
        self.ctx = ctx

    def modules(self) -> list[dict[str, Any]]:
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
                    {
                        "id": number,
                        "type": module.type,
                        "start_time": start_time,
                        "end_time": None,
                        "title": module.title,
                        "order": module.order,
                        "data": data,
                    }
                )
        return shown

    def data(self, module: SidebarModule) -> dict[str, Any] | None:
        result: dict[str, Any] | None = getattr(self, module.type)(module)
        return result

    def money(self, amount: Decimal) -> Decimal:
        return round_money(Decimal(amount), self.currency)

    def top_customer(self, module: SidebarModule) -> dict[str, Any]:
        """This month's top customer; empty names and a zero total before the first payment."""
        top = self.stats.top_customer
        if not top or self.stats.month != self.month or not top.get("username"):
            top = {"username": "", "total": 0}
        return {
            "header": module.title,
            "username": str(top["username"]),
            "username_id": str(top.get("platform_id") or ""),
            "total": self.money(Decimal(str(top.get("total", 0)))),
            "currency": self.currency,
            "month": self.month,
        }

    def recent_payments(self, module: SidebarModule) -> dict[str, Any]:
        limit = min(max(int_setting(module, "limit") or 5, 1), MAX_RECENT_PAYMENTS)
        return {
            "header": module.title,
            "payments": [
                {
                    "username": p.username,
                    "username_id": p.platform_id,
                    "package": {"name": p.package},
                    "created_at": p.date.isoformat(),
                    "price": round_money(p.amount, p.currency),
                    "amount": round_money(p.amount, p.currency),
                    "currency": p.currency,
                    "date": p.date.isoformat(),
                }
                for p in self.stats.recent_payments[:limit]
            ],
        }

    def community_goal(self, module: SidebarModule) -> dict[str, Any] | None:
        goal_id = int_setting(module, "goal_id")
        goals = [
            g for g in sorted(self.view.goals, key=lambda g: g.id) if g.status is not GoalStatus.DISABLED
        ]
        goal: CommunityGoal | None = next((g for g in goals if goal_id is None or g.id == goal_id), None)
        if goal is None:
            return None
        return {
            "header": module.title,
            "bar_style": BAR_STYLE,
            "bar_animated": False,
            "percentage": _percentage(goal.current, goal.target),
            "total_payments": self.money(goal.current),
            "times_achieved": goal.times_achieved,
            "id": goal.id,
            "name": goal.name,
            "description": goal.description,
            "image": goal.image,
            "target": self.money(goal.target),
            "current": self.money(goal.current),
            "status": goal.status.value,
            "repeatable": goal.repeatable,
        }

    def payment_goal(self, module: SidebarModule) -> dict[str, Any]:
        target = Decimal(str(module.settings.get("target") or 0))
        current = self.stats.month_revenue if self.stats.month == self.month else ZERO
        return {
            "header": module.title,
            "bar_style": BAR_STYLE,
            "bar_animated": False,
            "percentage": _percentage(current, target),
            "total": self.money(current),
            "target": self.money(target),
            "month": self.month,
            "current": self.money(current),
            "currency": self.currency,
        }

    def textbox(self, module: SidebarModule) -> dict[str, Any]:
        content = str(module.settings.get("content") or "")
        return {"header": module.title, "text": content, "content": content}

    def featured_package(self, module: SidebarModule) -> dict[str, Any] | None:
        package = self.featured.get(int_setting(module, "package_id") or 0)
        if package is None or package.disabled:
            return None
        return {"header": module.title, "package": package_data(package, self.view, self.ctx)}

    def giftcard_balance(self, module: SidebarModule) -> dict[str, Any]:
        return {"header": module.title, "currency": self.currency}

    def server_status(self, module: SidebarModule) -> dict[str, Any]:
        address = str(module.settings.get("address") or "")
        hostname, port = server_address(address)
        return {
            "header": module.title,
            "hostname": hostname,
            "port": port,
            "online": False,
            "players": None,
            "address": address,
        }
