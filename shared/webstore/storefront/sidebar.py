"""GET /sidebar: the store's configured sidebar modules, in order, each with its data.

Shapes (COMPAT names the modules only; decided in docs/players.md): every module is
`{type, title, order, data}`; `data` is the module's object below, or null when there is
nothing to show (no customer this month yet, a goal or package that is gone or disabled).

Round trips: one Query (goals + stats + store + categories); a store that features a package
adds one BatchGetItem for the featured package(s), which can only be named once the store item is read.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from pydantic import BaseModel

from webstore import keys
from webstore.catalog import CommunityGoal, GoalStatus, Package, SidebarModule
from webstore.db import from_item
from webstore.money import ZERO, round_money
from webstore.players import StoreStats
from webstore.repo.store import StoreRepository, StoreView
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.catalog import package_view, pricing_context, verified

MAX_RECENT_PAYMENTS = 10


class TopCustomer(BaseModel):
    username: str
    total: schemas.Money
    currency: str
    month: str


class RecentPayment(BaseModel):
    username: str
    package: str
    amount: schemas.Money
    currency: str
    date: str


class RecentPayments(BaseModel):
    payments: list[RecentPayment]


class Goal(BaseModel):
    id: int
    name: str
    description: str
    image: str
    target: schemas.Money
    current: schemas.Money
    percentage: float
    status: str
    repeatable: bool
    times_achieved: int


class PaymentGoal(BaseModel):
    month: str
    target: schemas.Money
    current: schemas.Money
    percentage: float
    currency: str


class TextBox(BaseModel):
    content: str


class FeaturedPackage(BaseModel):
    package: schemas.Package


class GiftCardBalance(BaseModel):
    """The shop renders a card-number form; the module tells it which currency balances are in."""

    currency: str


class ServerStatus(BaseModel):
    """The game server's address as configured; the shop (client side) pings it, not Lambda."""

    address: str


ModuleData = (
    TopCustomer
    | RecentPayments
    | Goal
    | PaymentGoal
    | TextBox
    | FeaturedPackage
    | GiftCardBalance
    | ServerStatus
)


class Module(BaseModel):
    type: str
    title: str
    order: int
    data: ModuleData | None


def _percentage(current: Decimal, target: Decimal) -> float:
    if target <= ZERO:
        return 100.0
    return float(min(current * 100 / target, Decimal(100)).quantize(Decimal("0.01")))


def _int_setting(module: SidebarModule, name: str) -> int | None:
    value = module.settings.get(name)
    if isinstance(value, bool) or value is None:
        return None
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


class _Builder:
    def __init__(self, services: Services, view: StoreView, featured: dict[int, Package]) -> None:
        self.view = view
        self.store = view.store
        self.currency = view.store.currency
        self.now = services.now()
        self.month = self.now.strftime("%Y-%m")
        self.stats = StoreStats.model_validate(
            {k: v for k, v in view.stats.items() if k in StoreStats.model_fields}
        )
        self.featured = featured
        self.ctx = pricing_context(services, view)

    def money(self, amount: Decimal) -> Decimal:
        return round_money(Decimal(amount), self.currency)

    def build(self, module: SidebarModule) -> Any:
        return getattr(self, module.type)(module)

    def top_customer(self, module: SidebarModule) -> TopCustomer | None:
        top = self.stats.top_customer
        if not top or self.stats.month != self.month or not top.get("username"):
            return None
        return TopCustomer(
            username=str(top["username"]),
            total=self.money(Decimal(str(top.get("total", 0)))),
            currency=self.currency,
            month=self.month,
        )

    def recent_payments(self, module: SidebarModule) -> RecentPayments:
        limit = min(max(_int_setting(module, "limit") or 5, 1), MAX_RECENT_PAYMENTS)
        return RecentPayments(
            payments=[
                RecentPayment(
                    username=p.username,
                    package=p.package,
                    amount=round_money(p.amount, p.currency),
                    currency=p.currency,
                    date=p.date.isoformat(),
                )
                for p in self.stats.recent_payments[:limit]
            ]
        )

    def community_goal(self, module: SidebarModule) -> Goal | None:
        goal_id = _int_setting(module, "goal_id")
        goals = [
            g for g in sorted(self.view.goals, key=lambda g: g.id) if g.status is not GoalStatus.DISABLED
        ]
        goal: CommunityGoal | None = next(
            (g for g in goals if goal_id is None or g.id == goal_id),
            None,
        )
        if goal is None:
            return None
        return Goal(
            id=goal.id,
            name=goal.name,
            description=goal.description,
            image=goal.image,
            target=self.money(goal.target),
            current=self.money(goal.current),
            percentage=_percentage(goal.current, goal.target),
            status=goal.status.value,
            repeatable=goal.repeatable,
            times_achieved=goal.times_achieved,
        )

    def payment_goal(self, module: SidebarModule) -> PaymentGoal:
        target = Decimal(str(module.settings.get("target") or 0))
        current = self.stats.month_revenue if self.stats.month == self.month else ZERO
        return PaymentGoal(
            month=self.month,
            target=self.money(target),
            current=self.money(current),
            percentage=_percentage(current, target),
            currency=self.currency,
        )

    def textbox(self, module: SidebarModule) -> TextBox:
        return TextBox(content=str(module.settings.get("content") or ""))

    def featured_package(self, module: SidebarModule) -> FeaturedPackage | None:
        package = self.featured.get(_int_setting(module, "package_id") or 0)
        if package is None or package.disabled:
            return None
        return FeaturedPackage(package=package_view(package, self.view, self.ctx))

    def giftcard_balance(self, module: SidebarModule) -> GiftCardBalance:
        return GiftCardBalance(currency=self.currency)

    def server_status(self, module: SidebarModule) -> ServerStatus:
        return ServerStatus(address=str(module.settings.get("address") or ""))


def get_sidebar(services: Services, public_token: str) -> list[Module]:
    account_id = keys.account_of(public_token)
    view = StoreRepository(services.table).sidebar_with_categories(account_id)
    verified(view.store, public_token)
    modules = sorted(view.store.sidebar, key=lambda m: m.order)
    featured_ids = {
        i
        for m in modules
        if m.type == "featured_package" and (i := _int_setting(m, "package_id")) and 1 <= i <= keys.INT32_MAX
    }
    featured: dict[int, Package] = {}
    if featured_ids:
        pk = keys.store_pk(account_id)
        items = services.table.batch_get([keys.key(pk, keys.package_sk(i)) for i in sorted(featured_ids)])
        featured = {p.id: p for p in (from_item(Package, i) for i in items if i.get("entity") == "package")}
    builder = _Builder(services, view, featured)
    return [Module(type=m.type, title=m.title, order=m.order, data=builder.build(m)) for m in modules]
