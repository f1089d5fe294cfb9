"""Domain → wire for the operator interface: every response shape is made here, from models
the repositories return (the shapes themselves are in `schemas`)."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from webstore.catalog import CommunityGoal, Coupon, Package, Sale
from webstore.operator import schemas
from webstore.operator.queue_views import plugin_uuid
from webstore.players import Player
from webstore.pricing import PricingContext, best_sale_discount
from webstore.repo.bans import Ban
from webstore.repo.payments import PaymentRecord
from webstore.repo.store import StoreView
from webstore.servers import Server


def _plain_time(value: datetime) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S")


# What the platform sends as the expiry date of a coupon that never expires (MC needs a date).
NO_EXPIRY = "1901-12-13T20:45:52+00:00"


def _coupon_date(value: datetime) -> str:
    """`yyyy-MM-ddTHH:mm:ss+00:00`, the one form MC's coupon parser reads (no fraction, no Z)."""
    return value.astimezone(UTC).replace(microsecond=0).isoformat()


def _number(value: Decimal) -> int | float:
    """A whole amount as an integer literal (CS reads `minimum` as an int), else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


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
            date=_coupon_date(coupon.expire_date) if coupon.expire_date else NO_EXPIRY,
        ),
        basket_type=coupon.basket_type.value,
        start_date=_coupon_date(coupon.start_date or coupon.created_at),
        user_limit=coupon.user_limit,
        minimum=_number(coupon.minimum),
        username=coupon.username or "",
        note=coupon.note,
    )


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
        "image": package.image or False,
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
        "show_until": int(package.expiration_date.timestamp()) if package.expiration_date else False,
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


def sale_view(sale: Sale) -> schemas.Sale:
    return schemas.Sale(
        id=sale.id,
        name=sale.name,
        effective=schemas.SaleEffective(
            type=sale.effective.type, packages=sale.effective.packages, categories=sale.effective.categories
        ),
        discount=schemas.SaleDiscount(
            type=sale.discount.type.value,
            percentage=float(sale.discount.percentage),
            value=float(sale.discount.value),
        ),
        start=int(sale.start.timestamp()),
        expire=int(sale.expire.timestamp()),
        order=sale.order,
    )


def platform_id(value: str | None) -> str | None:
    """A player's platform id in the one form every operator answer uses (the queue's): a
    Minecraft UUID as 32 lowercase hex digits without dashes, any other id (Steam64) as kept."""
    return plugin_uuid(value) or value


def ban_view(ban: Ban) -> schemas.Ban:
    return schemas.Ban(
        id=ban.id,
        time=ban.time.isoformat(),
        ip=ban.ip,
        payment_email=ban.payment_email,
        reason=ban.reason,
        user=schemas.BanUser(ign=ban.ign, uuid=platform_id(ban.uuid)),
    )


def player_lookup_view(player: Player, payments: list[PaymentRecord]) -> schemas.PlayerLookup:
    return schemas.PlayerLookup(
        player=schemas.LookupPlayer(
            id=platform_id(player.uuid) or "",
            username=player.username,
            name=player.username,
            meta="",
            plugin_username_id=player.username_id,
        ),
        banCount=player.bans,
        chargebackRate=player.chargeback_rate,
        payments=[
            schemas.LookupPayment(
                txn_id=p.transaction_id,
                time=int(p.created_at.timestamp()),
                price=float(p.amount),
                currency=p.currency,
                status=p.status_id,
            )
            for p in payments
        ],
        purchaseTotals={currency: float(total) for currency, total in player.totals.items()} or [],
    )
