"""Operator admin reads and writes: information, coupons, goals, packages, sales, bans, players."""

from __future__ import annotations

import ipaddress
import math
import re
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any, Literal
from urllib.parse import urlencode

from pydantic import BaseModel, Field

from webstore import keys
from webstore.catalog import (
    BasketType,
    CommunityGoal,
    Coupon,
    Discount,
    DiscountType,
    Effective,
    Package,
    Server,
    Store,
)
from webstore.db import ConditionFailed, TransactAction, from_item, start_read
from webstore.errors import Forbidden, Invalid, NotFound
from webstore.money import symbol
from webstore.operator import schemas
from webstore.operator.auth import ServerIdentity
from webstore.operator.fulfilment import player_actions
from webstore.pricing import PricingContext, active_sales, best_sale_discount
from webstore.repo.account import AccountRepository
from webstore.repo.payments import STATUS_IDS, PaymentRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.repo.users import User, UserRepository, check_username
from webstore.services import Services

_UUID = re.compile(r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$")
COUPONS_PER_PAGE = 25
BANS_PER_PAGE = 100


def _timestamp(value: datetime | None) -> str | None:
    return value.isoformat() if value else None


def _plain_time(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


def normalize_uuid(value: str) -> str:
    digits = value.replace("-", "").lower()
    return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"


# --- information ---------------------------------------------------------------------------------


def information(services: Services, who: ServerIdentity) -> schemas.Information:
    """The store and the calling server: one BatchGetItem."""
    store_key = keys.key(keys.store_pk(who.account_id), keys.STORE_ITEM)
    server_key = keys.key(keys.account_pk(who.account_id), keys.server_sk(who.server_id))
    found = {i["SK"]: i for i in services.table.batch_get([store_key, server_key])}
    if store_key["SK"] not in found:
        raise NotFound("Store not found")
    if server_key["SK"] not in found:
        raise Forbidden("This server no longer exists")
    store = from_item(Store, found[store_key["SK"]])
    server = from_item(Server, found[server_key["SK"]])
    return schemas.Information(
        account=schemas.InformationAccount(
            id=store.id,
            domain=store.webstore_url,
            name=store.name,
            currency=schemas.Currency(iso_4217=store.currency, symbol=symbol(store.currency)),
            online_mode=store.online_mode,
            game_type=store.game_type,
            log_events=store.log_events,
        ),
        server=schemas.ServerRef(id=server.id, name=server.name),
    )


# --- coupons -------------------------------------------------------------------------------------


def coupon_view(coupon: Coupon) -> schemas.Coupon:
    return schemas.Coupon(
        id=coupon.id,
        code=coupon.code,
        effective=schemas.CouponEffective(
            type=coupon.effective.type,
            packages=coupon.effective.packages,
            categories=coupon.effective.categories,
        ),
        discount=schemas.CouponDiscount(
            type=coupon.discount.type.value,
            percentage=float(coupon.discount.percentage),
            value=float(coupon.discount.value),
        ),
        expire=schemas.CouponExpire(
            redeem_unlimited=str(coupon.redeem_unlimited).lower(),
            expire_never=str(coupon.expire_never).lower(),
            limit=coupon.expire_limit,
            date=_timestamp(coupon.expire_date),
        ),
        basket_type=coupon.basket_type.value,
        start_date=_timestamp(coupon.start_date),
        user_limit=coupon.user_limit,
        minimum=float(coupon.minimum),
        username=coupon.username,
        note=coupon.note,
    )


def list_coupons(
    services: Services, account_id: int, page: int, after: int | None, before: int | None
) -> schemas.CouponList:
    """25 a page, in id order. The next/previous links carry a cursor (the last/first id shown),
    so following them is one Query whatever the page; the total comes from a counter."""
    if page < 1:
        raise Invalid("page must be at least 1", field="page")
    accounts = AccountRepository(services.table)
    pk = keys.account_pk(account_id)
    total_future = start_read(accounts.coupon_count, account_id)
    lowest, highest = keys.coupon_sk(1), keys.coupon_sk(keys.INT32_MAX)
    if before is not None:
        items, _ = services.table.query(
            pk, sk_between=(lowest, keys.coupon_sk(max(before - 1, 0))), forward=False, limit=COUPONS_PER_PAGE
        )
        items.reverse()
    else:
        start = after
        if after is None and page > 1:
            start = _coupon_id_before_page(services, pk, page)
        floor = keys.coupon_sk(start + 1) if start is not None else lowest
        items, _ = services.table.query(pk, sk_between=(floor, highest), limit=COUPONS_PER_PAGE + 1)
    more_after = len(items) > COUPONS_PER_PAGE if before is None else True
    items = items[:COUPONS_PER_PAGE]
    total = total_future.result()
    last_page = max(1, math.ceil(total / COUPONS_PER_PAGE))
    coupons = [from_item(Coupon, i) for i in items]
    base = f"{services.settings.operator_url}/coupons?"
    next_url = (
        base + urlencode({"page": page + 1, "after": coupons[-1].id}) if coupons and more_after else None
    )
    previous_url = (
        base + urlencode({"page": page - 1, "before": coupons[0].id}) if coupons and page > 1 else None
    )
    return schemas.CouponList(
        pagination=schemas.Pagination(
            totalResults=total, currentPage=page, lastPage=last_page, previous=previous_url, next=next_url
        ),
        data=[coupon_view(c) for c in coupons],
    )


def _coupon_id_before_page(services: Services, pk: str, page: int) -> int | None:
    """A direct jump to page N (no cursor): the ids of the pages before it, keys only."""
    skipped = COUPONS_PER_PAGE * (page - 1)
    items, _ = services.table.query(
        pk,
        sk_between=(keys.coupon_sk(1), keys.coupon_sk(keys.INT32_MAX)),
        limit=skipped,
        projection="PK, SK",
    )
    if len(items) < skipped:
        return keys.INT32_MAX  # past the end: an empty page
    return int(items[-1]["SK"].split("#", 1)[1])


def coupon_by_ref(services: Services, account_id: int, ref: str) -> Coupon:
    """A coupon by id (or, for convenience, by code)."""
    if ref.isdigit() and 1 <= int(ref) <= keys.INT32_MAX:
        return AccountRepository(services.table).coupon(account_id, int(ref))
    if not ref or len(ref) > 64:
        raise NotFound("Coupon not found")
    item = services.table.get(AccountRepository(services.table).coupon_by_code_key(account_id, ref))
    if item is None:
        raise NotFound("Coupon not found")
    return from_item(Coupon, item)


class CouponCreate(BaseModel):
    """POST /coupons, SPEC's body. Which fields matter depends on the others; `new_coupon` checks."""

    code: str = Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_\-]+$")
    effective_on: Literal["package", "category", "cart"]
    packages: list[int] = Field(default_factory=list, max_length=500)
    categories: list[int] = Field(default_factory=list, max_length=500)
    discount_type: DiscountType
    discount_amount: Decimal = Field(default=Decimal(0), ge=0, max_digits=14, decimal_places=4)
    discount_percentage: Decimal = Field(default=Decimal(0), ge=0, le=100, max_digits=7, decimal_places=4)
    redeem_unlimited: bool = True
    expire_never: bool = True
    expire_limit: int = Field(default=0, ge=0, le=keys.INT32_MAX)
    expire_date: str | None = None
    start_date: str | None = None
    basket_type: BasketType = BasketType.BOTH
    minimum: Decimal = Field(default=Decimal(0), ge=0, max_digits=14, decimal_places=4)
    discount_application_method: Literal[0, 1, 2] = 0
    user_limit: int = Field(default=0, ge=0, le=keys.INT32_MAX)
    username: str | None = None
    note: str = Field(default="", max_length=1000)


def _date(value: str, field: str) -> datetime:
    try:
        parsed = datetime.strptime(value, "%Y-%m-%d")
    except ValueError as error:
        raise Invalid(f"{field} must be a date yyyy-mm-dd", field=field) from error
    return parsed.replace(tzinfo=UTC)


def new_coupon(body: CouponCreate, view: StoreView, coupon_id: int, now: datetime) -> Coupon:
    """Check the combinations SPEC describes; what a field is 'used only when' must not be
    sent otherwise (so a mistake is reported, not silently ignored)."""
    if body.effective_on == "package":
        if not body.packages:
            raise Invalid("packages is required when effective_on is package", field="packages")
        unknown = [p for p in body.packages if view.package(p) is None]
        if unknown:
            raise Invalid(f"packages: no package {unknown[0]}", field="packages")
    elif body.packages:
        raise Invalid("packages is used only when effective_on is package", field="packages")
    if body.effective_on == "category":
        if not body.categories:
            raise Invalid("categories is required when effective_on is category", field="categories")
        unknown = [c for c in body.categories if view.category(c) is None]
        if unknown:
            raise Invalid(f"categories: no category {unknown[0]}", field="categories")
    elif body.categories:
        raise Invalid("categories is used only when effective_on is category", field="categories")
    if body.discount_type is DiscountType.PERCENTAGE:
        if not 0 < body.discount_percentage <= 100:
            raise Invalid(
                "discount_percentage must be 1 to 100 for a percentage discount", field="discount_percentage"
            )
        if body.discount_amount:
            raise Invalid("discount_amount is used only for a value discount", field="discount_amount")
    else:
        if body.discount_amount <= 0:
            raise Invalid("discount_amount must be more than 0 for a value discount", field="discount_amount")
        if body.discount_percentage:
            raise Invalid(
                "discount_percentage is used only for a percentage discount", field="discount_percentage"
            )
    if not body.redeem_unlimited and body.expire_limit < 1:
        raise Invalid("expire_limit must be at least 1 unless redeem_unlimited", field="expire_limit")
    if body.redeem_unlimited and body.expire_limit:
        raise Invalid("expire_limit is used only when redeem_unlimited is false", field="expire_limit")
    start = _date(body.start_date, "start_date") if body.start_date else None
    expire = None
    if not body.expire_never:
        if not body.expire_date:
            raise Invalid("expire_date is required unless expire_never", field="expire_date")
        expire = _date(body.expire_date, "expire_date")
        if start and expire <= start:
            raise Invalid("expire_date must be after start_date", field="expire_date")
    elif body.expire_date:
        raise Invalid("expire_date is used only when expire_never is false", field="expire_date")
    username = check_username(body.username, "username") if body.username else None
    return Coupon(
        id=coupon_id,
        code=body.code.upper(),
        effective=Effective(type=body.effective_on, packages=body.packages, categories=body.categories),
        discount=Discount(
            type=body.discount_type, percentage=body.discount_percentage, value=body.discount_amount
        ),
        redeem_unlimited=body.redeem_unlimited,
        expire_never=body.expire_never,
        expire_limit=body.expire_limit,
        expire_date=expire,
        start_date=start,
        basket_type=body.basket_type,
        minimum=body.minimum,
        discount_application_method=body.discount_application_method,
        user_limit=body.user_limit,
        username=username,
        note=body.note,
        created_at=now,
    )


def create_coupon(services: Services, account_id: int, body: CouponCreate) -> schemas.Coupon:
    view = StoreRepository(services.table).catalog(account_id, with_packages=True)
    accounts = AccountRepository(services.table)
    # Validate before spending an id; ids may have gaps (the list pages by cursor, not by id).
    new_coupon(body, view, 1, services.now())
    coupon = new_coupon(body, view, accounts.next_ids(account_id, "coupon")[0], services.now())
    accounts.create_coupon(account_id, coupon)
    return coupon_view(coupon)


def delete_coupon(services: Services, account_id: int, ref: str) -> None:
    accounts = AccountRepository(services.table)
    accounts.delete_coupon(account_id, coupon_by_ref(services, account_id, ref))


# --- community goals -------------------------------------------------------------------------------


def goal_view(goal: CommunityGoal, account_id: int) -> schemas.CommunityGoal:
    return schemas.CommunityGoal(
        id=goal.id,
        created_at=_plain_time(goal.created_at),
        updated_at=_plain_time(goal.updated_at),
        account=account_id,
        name=goal.name,
        description=goal.description,
        image=goal.image,
        target=f"{goal.target:.2f}",
        current=f"{goal.current:.2f}",
        repeatable=int(goal.repeatable),
        last_achieved=_plain_time(goal.last_achieved) if goal.last_achieved else None,
        times_achieved=goal.times_achieved,
        status=goal.status.value,
        sale=goal.sale,
    )


def list_goals(services: Services, account_id: int) -> list[schemas.CommunityGoal]:
    items, _ = services.table.query(
        keys.store_pk(account_id), sk_between=(keys.goal_sk(1), keys.goal_sk(keys.INT32_MAX)), limit=100
    )
    return [goal_view(from_item(CommunityGoal, i), account_id) for i in items]


def get_goal(services: Services, account_id: int, goal_id: int) -> schemas.CommunityGoal:
    item = services.table.get(keys.key(keys.store_pk(account_id), keys.goal_sk(goal_id)))
    if item is None:
        raise NotFound("Community goal not found")
    return goal_view(from_item(CommunityGoal, item), account_id)


# --- packages ----------------------------------------------------------------------------------------


def _servers(services: Services, account_id: int) -> dict[int, Server]:
    items, _ = services.table.query(keys.account_pk(account_id), sk_prefix="SERVER#")
    return {int(i["id"]): from_item(Server, i) for i in items}


def _catalog_and_servers(services: Services, account_id: int) -> tuple[StoreView, dict[int, Server]]:
    """The catalog (one Query) and the servers (one Query), issued together."""
    servers = start_read(_servers, services, account_id)
    view = StoreRepository(services.table).catalog(account_id, with_packages=True)
    return view, servers.result()


def package_view(
    package: Package, view: StoreView, servers: dict[int, Server], now: datetime, *, verbose: bool
) -> schemas.OperatorPackage:
    category = view.category(package.category_id)
    discount = best_sale_discount(
        package.price, package.id, package.category_id, PricingContext(view.store, view.sales, now)
    )
    fields: dict[str, Any] = {
        "id": package.id,
        "name": package.name,
        "order": package.order,
        "image": package.image,
        "price": float(package.price),
        "sale": schemas.PackageSale(active=discount > 0, discount=float(round(discount, 2))),
        "expiry_length": package.expiry_length,
        "expiry_period": package.expiry_period,
        "type": package.type.value,
        "category": schemas.ServerRef(id=package.category_id, name=category.name if category else ""),
        "global_limit": 0,
        "global_limit_period": "single",
        "user_limit": package.user_limit,
        "user_limit_period": "single",
        "servers": [
            schemas.ServerRef(id=s, name=servers[s].name if s in servers else "") for s in package.server_ids
        ],
        "required_packages": [],
        "require_any": False,
        "create_giftcard": False,
        "show_until": _timestamp(package.expiration_date),
        "gui_item": "",
        "disabled": package.disabled,
        "disable_quantity": package.disable_quantity,
        "custom_price": False,
        "choose_server": False,
        "limit_expires": False,
        "inherit_commands": False,
        "variable_giftcard": False,
    }
    if verbose:
        return schemas.VerbosePackage(**fields, description=package.description)
    return schemas.OperatorPackage(**fields)


def list_packages(services: Services, account_id: int, verbose: bool) -> list[schemas.OperatorPackage]:
    view, servers = _catalog_and_servers(services, account_id)
    now = services.now()
    return [package_view(p, view, servers, now, verbose=verbose) for p in view.packages]


def get_package(services: Services, account_id: int, ref: str, verbose: bool) -> schemas.OperatorPackage:
    package_id = _package_id(ref)
    view, servers = _catalog_and_servers(services, account_id)
    package = view.package(package_id)
    if package is None:
        raise NotFound("Package not found")
    return package_view(package, view, servers, services.now(), verbose=verbose)


def _package_id(ref: str) -> int:
    if not ref.isdigit() or not 1 <= int(ref) <= keys.INT32_MAX:
        raise NotFound("Package not found")
    return int(ref)


class PackageUpdate(BaseModel):
    disabled: bool | None = None
    name: str | None = Field(default=None, min_length=1, max_length=200)
    price: Decimal | None = Field(default=None, ge=0, le=Decimal("1000000"), max_digits=14, decimal_places=4)


def update_package(
    services: Services, account_id: int, ref: str, body: PackageUpdate
) -> schemas.OperatorPackage:
    """One conditional UpdateItem (the package must exist), then the package as GET shows it."""
    package_id = _package_id(ref)
    changes = body.model_dump(exclude_none=True)
    if not changes:
        raise Invalid("Send disabled, name and/or price", field="body")
    if "name" in changes:
        changes["name"] = changes["name"].strip()
        if not changes["name"]:
            raise Invalid("name must not be blank", field="name")
    changes["updated_at"] = services.now()
    names = {f"#{k}": k for k in changes}
    values = {f":{k}": v for k, v in changes.items()}
    try:
        services.table.update(
            keys.key(keys.store_pk(account_id), keys.package_sk(package_id)),
            "SET " + ", ".join(f"#{k} = :{k}" for k in changes),
            condition="attribute_exists(PK)",
            names=names,
            values=values,
        )
    except ConditionFailed as error:
        raise NotFound("Package not found") from error

    return get_package(services, account_id, ref, verbose=False)


# --- sales -----------------------------------------------------------------------------------------


def active_sales_of(services: Services, account_id: int) -> list[schemas.Sale]:
    store = StoreRepository(services.table).store(account_id)
    return [
        schemas.Sale(
            id=s.id,
            name=s.name,
            effective=schemas.SaleEffective(
                type=s.effective.type, packages=s.effective.packages, categories=s.effective.categories
            ),
            discount=schemas.SaleDiscount(
                type=s.discount.type.value,
                percentage=float(s.discount.percentage),
                value=float(s.discount.value),
            ),
            start=int(s.start.timestamp()),
            expire=int(s.expire.timestamp()),
            order=s.order,
        )
        for s in active_sales(store.sales, services.now())
    ]


# --- bans --------------------------------------------------------------------------------------------


def ban_view(item: dict[str, Any]) -> schemas.Ban:
    return schemas.Ban(
        id=int(item["id"]),
        time=item["time"],
        ip=item.get("ip", ""),
        payment_email=item.get("payment_email", ""),
        reason=item.get("reason", ""),
        user=schemas.BanUser(ign=item.get("ign", ""), uuid=item.get("uuid")),
    )


def list_bans(services: Services, account_id: int) -> list[schemas.Ban]:
    """The latest bans, newest first (one Query, at most 100)."""
    items, _ = services.table.query(
        keys.account_pk(account_id),
        sk_between=(keys.ban_sk(1), keys.ban_sk(keys.INT32_MAX)),
        forward=False,
        limit=BANS_PER_PAGE,
    )
    return [ban_view(i) for i in items]


class BanCreate(BaseModel):
    reason: str = Field(default="", max_length=1000)
    ip: str | None = Field(default=None, max_length=64)
    user: str = Field(min_length=1, max_length=64)


def create_ban(services: Services, account_id: int, body: BanCreate) -> schemas.Ban:
    """Ban a player by username or UUID (optionally an IP too); counts on the player record."""
    ip = ""
    if body.ip:
        try:
            ip = str(ipaddress.ip_address(body.ip.strip()))
        except ValueError as error:
            raise Invalid("ip must be an IPv4 or IPv6 address", field="ip") from error
    payments = PaymentRepository(services.table)
    user: User | None
    if _UUID.match(body.user):
        uuid_value = normalize_uuid(body.user)
        username_id = payments.player_id_by_uuid(account_id, uuid_value)
        player = _player_item(services, account_id, username_id) if username_id else None
        user = User(username_id, player["username"], uuid_value) if username_id and player else None
    else:
        user = UserRepository(services.table).ensure(check_username(body.user, "user"))
        uuid_value = user.uuid
        player = _player_item(services, account_id, user.id)
    now = services.now()
    ban_id = AccountRepository(services.table).next_ids(account_id, "ban")[0]
    item = {
        **keys.key(keys.account_pk(account_id), keys.ban_sk(ban_id)),
        "entity": "ban",
        "id": ban_id,
        "time": now.isoformat(),
        "ip": ip,
        "payment_email": (player or {}).get("email", ""),
        "reason": body.reason,
        "ign": user.username if user else "",
        "uuid": uuid_value,
    }
    actions = [TransactAction.put(item, condition="attribute_not_exists(PK)")]
    if user is not None:
        actions += player_actions(account_id, user, email="", now=now, counters={"bans": 1})
    services.table.transact(actions)
    return ban_view(item)


def _player_item(services: Services, account_id: int, username_id: int) -> dict[str, Any] | None:
    return services.table.get(keys.key(keys.account_pk(account_id), keys.player_sk(username_id)))


# --- player lookup -----------------------------------------------------------------------------------


def lookup_player(services: Services, account_id: int, ref: str) -> schemas.PlayerLookup:
    """By UUID or username: a pointer GetItem, then one GSI1 Query (player + latest payments)."""
    payments = PaymentRepository(services.table)
    if _UUID.match(ref):
        username_id = payments.player_id_by_uuid(account_id, normalize_uuid(ref))
    elif 1 <= len(ref) <= 64:
        username_id = payments.player_id_by_name(account_id, ref)
    else:
        username_id = None
    if username_id is None:
        raise NotFound("Player not found")
    player, found = payments.player_with_payments(account_id, username_id, 100)
    if player is None:
        raise NotFound("Player not found")
    count = int(player.get("payments", 0))
    chargebacks = int(player.get("chargebacks", 0))
    return schemas.PlayerLookup(
        player=schemas.LookupPlayer(
            id=player.get("uuid") or "", username=player["username"], meta="", plugin_username_id=username_id
        ),
        banCount=int(player.get("bans", 0)),
        chargebackRate=round(chargebacks / count, 4) if count else 0.0,
        payments=[
            schemas.LookupPayment(
                txn_id=p["transaction_id"],
                time=int(datetime.fromisoformat(p["created_at"]).timestamp()),
                price=float(p["amount"]),
                currency=p["currency"],
                status=STATUS_IDS.get(p["status"], 1),
            )
            for p in found
        ],
        purchaseTotals={
            k.removeprefix("total_"): float(v) for k, v in player.items() if k.startswith("total_")
        },
    )
