"""Panel scenarios for scripts/bench_round_trips.py: the payments, subscriptions and players
pages and their forms, signed in as the owner (each request reads the session too). The same
pages at 1,000 and 50,000 payments: scripts/bench_panel_money_scale.py."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from functions.admin import (
    add_payment_note,
    ban_player,
    cancel_subscription,
    get_payment_page,
    lift_ban,
    list_bans,
    list_subscriptions,
    refund_payment,
    resend_payment_commands,
    search_payments,
    show_player,
    show_subscription,
)
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil
from webstore.repo.bans import BanRepository
from webstore.services import get_services


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    payment = fulfil(
        services,
        Order(
            account_id=1,
            idempotency_key="bench-panel-money",
            username="BenchPanel",
            lines=[OrderLine(package_id=1, paid_price=Decimal("4.99"))],
            price_paid=Decimal("4.99"),
            currency="USD",
        ),
    )
    client = signed_in(Role.OWNER, email="bench-money@store1.test")
    ctx["admin_money"] = {"txn": payment.transaction_id, "cookie": client.headers(), "csrf": client.csrf}


def _form(ctx: dict[str, Any], fields: dict[str, str]) -> dict[str, Any]:
    money = ctx["admin_money"]
    raw = urlencode({"csrf": money["csrf"], **fields})
    headers = {**money["cookie"], "content-type": "application/x-www-form-urlencoded"}
    return {"raw_body": raw, "headers": headers}


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    money = ctx["admin_money"]
    txn = money["txn"]
    page = {"headers": money["cookie"]}
    yield "admin searchPayments", search_payments.handler, "GET", "/payments", page
    yield (
        "admin searchPayments (player)",
        search_payments.handler,
        "GET",
        "/payments",
        {**page, "query": {"player": "BenchPanel"}},
    )
    yield (
        "admin searchPayments (dates)",
        search_payments.handler,
        "GET",
        "/payments",
        {**page, "query": {"from": "2020-01-01"}},
    )
    yield "admin getPaymentPage", get_payment_page.handler, "GET", f"/payments/{txn}", page
    yield (
        "admin addPaymentNote",
        add_payment_note.handler,
        "POST",
        f"/payments/{txn}/notes",
        _form(ctx, {"note": "bench"}),
    )
    yield (
        "admin resendPaymentCommands",
        resend_payment_commands.handler,
        "POST",
        f"/payments/{txn}/resend",
        _form(ctx, {"resend_id": "b" * 32}),
    )
    yield "admin listSubscriptions", list_subscriptions.handler, "GET", "/subscriptions", page
    yield "admin showSubscription", show_subscription.handler, "GET", f"/subscriptions/{txn}", page
    yield (
        "admin cancelSubscriptionAtPeriodEnd",
        cancel_subscription.handler,
        "POST",
        f"/subscriptions/{txn}/cancel",
        _form(ctx, {}),
    )
    yield "admin showPlayer", show_player.handler, "GET", "/players/BenchPanel", page
    yield "admin banPlayer", ban_player.handler, "POST", "/bans", _form(ctx, {"user": "BenchPanel"})
    yield "admin listBans", list_bans.handler, "GET", "/bans", page
    ban_id = BanRepository(ctx["table"]).latest(1, 1)
    yield (
        "admin liftBan",
        lift_ban.handler,
        "POST",
        f"/bans/{ban_id[0].id if ban_id else 1}/lift",
        _form(ctx, {}),
    )
    yield (
        "admin refundPayment",
        refund_payment.handler,
        "POST",
        f"/payments/{txn}/refund",
        _form(ctx, {}),
    )
