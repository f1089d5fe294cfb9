"""Operator scenarios for scripts/bench_round_trips.py: every operation of the interface."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any

from functions.operator import (
    create_ban,
    create_coupon,
    create_payment,
    create_payment_note,
    delete_commands,
    delete_coupon,
    get_bans,
    get_community_goal,
    get_community_goals,
    get_coupon,
    get_coupons,
    get_due_players,
    get_information,
    get_offline_commands,
    get_online_commands,
    get_package,
    get_packages,
    get_payment,
    get_payment_fields,
    get_payments,
    get_sales,
    get_user,
    update_package,
    update_payment,
)
from webstore import keys
from webstore.operator import auth
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil
from webstore.services import get_services


def setup(ctx: dict[str, Any]) -> None:
    auth.cache.clear()
    services = get_services()
    payment = fulfil(
        services,
        Order(
            account_id=1,
            idempotency_key="bench-operator",
            username="BenchPlayer",
            lines=[
                OrderLine(package_id=1, paid_price=Decimal("4.99")),
                OrderLine(package_id=10, paid_price=Decimal("2.50")),
                OrderLine(package_id=11, paid_price=Decimal("5"), variables={"note": "x"}),
            ],
            price_paid=Decimal("12.49"),
            currency="USD",
        ),
    )
    items, _ = ctx["table"].query(keys.queue_pk(1, 1), sk_prefix="O", consistent=True)
    ctx["operator"] = {
        "headers": {"X-Tebex-Secret": ctx["demo"].server_secrets[1]},
        "txn": payment.transaction_id,
        "player_id": payment.username_id,
        "command_ids": [int(i["id"]) for i in items],
    }


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    op = ctx["operator"]
    h = {"headers": op["headers"]}
    txn = op["txn"]
    yield "op getInformation (secret not cached)", get_information.handler, "GET", "/information", h
    yield "op getInformation (secret cached)", get_information.handler, "GET", "/information", h
    yield "op getDuePlayers (cycle start)", get_due_players.handler, "GET", "/queue", h
    yield "op getDuePlayers (early: 429)", get_due_players.handler, "GET", "/queue", h
    yield "op getOfflineCommands", get_offline_commands.handler, "GET", "/queue/offline-commands", h
    yield (
        "op getOnlineCommands",
        get_online_commands.handler,
        "GET",
        f"/queue/online-commands/{op['player_id']}",
        h,
    )
    yield (
        "op deleteCommands (3 ids)",
        delete_commands.handler,
        "DELETE",
        "/queue",
        {**h, "body": {"ids": op["command_ids"]}},
    )
    yield "op getPayments (limit 100)", get_payments.handler, "GET", "/payments", h
    yield (
        "op getPayments (paged=1&page=1)",
        get_payments.handler,
        "GET",
        "/payments",
        {**h, "query": {"paged": "1", "page": "1"}},
    )
    yield "op getPayment", get_payment.handler, "GET", f"/payments/{txn}", h
    yield "op getPaymentFields", get_payment_fields.handler, "GET", "/payments/fields/11", h
    yield (
        "op createPayment (manual, 2 commands)",
        create_payment.handler,
        "POST",
        "/payments",
        {**h, "body": {"ign": "BenchTwo", "packages": [{"id": 10}], "price": 2.5}},
    )
    yield (
        "op createPayment (known player)",
        create_payment.handler,
        "POST",
        "/payments",
        {**h, "body": {"ign": "BenchTwo", "packages": [{"id": 10}], "price": 2.5}},
    )
    yield (
        "op createPaymentNote",
        create_payment_note.handler,
        "POST",
        f"/payments/{txn}/note",
        {**h, "body": {"note": "n"}},
    )
    yield (
        "op updatePayment (reassign)",
        update_payment.handler,
        "PUT",
        f"/payments/{txn}",
        {**h, "body": {"username": "BenchTwo"}},  # a known player (createPayment above)
    )
    yield (
        "op updatePayment (refund)",
        update_payment.handler,
        "PUT",
        f"/payments/{txn}",
        {**h, "body": {"status": "refund"}},
    )
    yield "op getCoupons", get_coupons.handler, "GET", "/coupons", h
    yield "op getCoupon", get_coupon.handler, "GET", "/coupons/1", h
    yield (
        "op createCoupon",
        create_coupon.handler,
        "POST",
        "/coupons",
        {
            **h,
            "body": {"code": "BENCH", "effective_on": "cart", "discount_type": "value", "discount_amount": 1},
        },
    )
    yield "op deleteCoupon", delete_coupon.handler, "DELETE", "/coupons/BENCH", h
    yield "op getCommunityGoals", get_community_goals.handler, "GET", "/community_goals", h
    yield "op getCommunityGoal", get_community_goal.handler, "GET", "/community_goals/1", h
    yield "op getPackages", get_packages.handler, "GET", "/packages", h
    yield "op getPackage", get_package.handler, "GET", "/package/10", h
    yield "op updatePackage", update_package.handler, "PUT", "/package/10", {**h, "body": {"price": 3}}
    yield "op getBans", get_bans.handler, "GET", "/bans", h
    yield (
        "op createBan (username)",
        create_ban.handler,
        "POST",
        "/bans",
        {**h, "body": {"user": "BenchPlayer"}},
    )
    yield "op getUser (username)", get_user.handler, "GET", "/user/BenchPlayer", h
    yield "op getSales", get_sales.handler, "GET", "/sales", h
