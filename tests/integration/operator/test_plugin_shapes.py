"""Operator shapes the plugin SDKs crash on, through the real handlers, parsed with the field
types each client declares (client_shapes.py; docs/research/client-facts.md §0, §3-§8, §13-§14)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from functions.operator import (
    create_coupon,
    get_coupon,
    get_coupons,
    get_due_players,
    get_offline_commands,
    get_package,
    get_packages,
    get_payments,
)
from tests.integration.operator import client_shapes
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.operator import queue_views, views
from webstore.repo.queue import QueuedCommand

MC_COUPON = {
    "code": "MCSALE",
    "effective_on": "package",
    "packages": [10],
    "discount_type": "percentage",
    "discount_percentage": 10,
    "discount_amount": 10,  # MC always sends both, with the same value
    "redeem_unlimited": True,
    "expire_never": True,
    "start_date": "2026-01-01",
    "basket_type": "both",
    "minimum": 0,
    "discount_application_method": 0,
}


def test_official_plugin_reads_every_package_field_non_null(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    until = datetime(2099, 1, 1, tzinfo=UTC)
    demo.table.update(
        keys.key(keys.store_pk(1), keys.package_sk(12)),
        "SET expiration_date = :d",
        values={":d": until.isoformat()},
    )
    listed = invoke(get_packages.handler, "GET", "/packages", headers=h)
    packages = {p["id"]: client_shapes.McPackage.model_validate(p) for p in listed.json()}
    assert packages[10].image == "https://example.invalid/sword.png"
    assert packages[11].image is False and packages[11].show_until is False  # the platform's values
    assert packages[12].show_until == int(until.timestamp())
    one = invoke(get_package.handler, "GET", "/package/11", headers=h, query={"verbose": "true"})
    assert client_shapes.McPackage.model_validate(one.json()).image is False


def test_official_plugin_coupon_create_sends_both_discounts_and_reads_the_dates(
    demo: DemoStore, invoke: Invoke
) -> None:
    h = {**secret_headers(demo.server_secret), "content-type": "application/json; charset=utf-8"}
    raw = json.dumps(MC_COUPON, indent=2)
    created = invoke(create_coupon.handler, "POST", "/coupons", raw_body=raw, headers=h)
    assert created.status == 200, created.body  # MC insists on 200
    coupon = client_shapes.McCouponData.model_validate(created.json()).data
    assert coupon.discount.type == "percentage" and coupon.discount.percentage == 10
    assert coupon.discount.value == 0  # the unused one is ignored
    assert coupon.expire.date == views.NO_EXPIRY and coupon.start_date == "2026-01-01T00:00:00+00:00"
    assert coupon.username == "" and coupon.minimum == 0

    got = invoke(get_coupon.handler, "GET", f"/coupons/{coupon.id}", headers=h)
    assert client_shapes.McCouponData.model_validate(got.json()).data == coupon
    # The imported coupons (no start date, no username, minimum 20.00) parse too.
    page = invoke(get_coupons.handler, "GET", "/coupons", headers=h).json()
    parsed = [client_shapes.McCoupon.model_validate(c) for c in page["data"]]
    big5 = next(c for c in parsed if c.code == "BIG5")
    assert big5.minimum == 20 and big5.username == "" and big5.expire.date == views.NO_EXPIRY


def test_buycraftx_form_coupon_create(demo: DemoStore, invoke: Invoke) -> None:
    form = urlencode(
        [
            ("code", "BXSALE"),
            ("effective_on", "packages"),
            ("packages[]", "10"),
            ("packages[]", "11"),
            ("discount_type", "value"),
            ("discount_amount", "1.50"),
            ("discount_percentage", "1.50"),
            ("redeem_unlimited", "true"),
            ("expire_never", "false"),
            ("expire_date", "2099-01-05T11:06:42Z"),
            ("start_date", "2026-01-05T11:06:42+01"),
            ("basket_type", "single"),
            ("minimum", "0"),
            ("discount_application_method", "2"),
            ("username", ""),
            ("note", ""),
        ]
    )
    h = {"X-Buycraft-Secret": demo.server_secret, "content-type": "application/x-www-form-urlencoded"}
    created = invoke(create_coupon.handler, "POST", "/coupons", raw_body=form, headers=h)
    assert created.status == 200, created.body
    coupon = client_shapes.McCouponData.model_validate(created.json()).data
    assert coupon.effective.packages == [10, 11] and coupon.discount.value == 1.5
    assert coupon.expire.date == "2099-01-05T11:06:42+00:00"
    assert coupon.start_date == "2026-01-05T10:06:42+00:00"


def test_buycraftx_parses_queue_uuids_and_csharp_parses_command_payments(
    demo: DemoStore, invoke: Invoke
) -> None:
    manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )
    h = {"X-Buycraft-Secret": demo.server_secret}
    due = client_shapes.BxDuePlayers.model_validate(
        invoke(get_due_players.handler, "GET", "/queue", headers=h).json()
    )
    assert [p.uuid for p in due.players] == [keys.player_uuid("Steve").replace("-", "")]
    commands = client_shapes.CsOfflineCommands.model_validate(
        invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=h).json()
    )
    assert commands.commands and all(c.payment == 1 for c in commands.commands)


def test_manual_commands_show_payment_zero_and_odd_uuids_as_null() -> None:
    def shown_for(uuid: str) -> Any:
        command = QueuedCommand(
            id=1,
            server_id=1,
            command="say hi",
            username_id=7,
            username="Steve",
            uuid=uuid,
            created_at=datetime(2026, 1, 1, tzinfo=UTC),
        )
        return queue_views.command_view(command)

    odd = shown_for("not-a-uuid-at-all")  # neither a Minecraft UUID nor a Steam id: BX would throw
    assert odd.payment == 0 and odd.player.uuid is None
    # A Steam store's player (docs/players.md, "Sign-in through Steam"): the Steam64 id as its
    # digits, what the plugins for Steam games parse (BuycraftX serves Minecraft stores only).
    assert shown_for("76561198042467022").player.uuid == "76561198042467022"
    assert (
        queue_views.plugin_uuid("069A79F4-44E9-4726-A5BE-FCA90E38AAF5") == "069a79f444e94726a5befca90e38aaf5"
    )


def test_csharp_sdk_parses_an_empty_payments_page(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    empty = invoke(get_payments.handler, "GET", "/payments", headers=h, query={"paged": "3"})
    page = client_shapes.CsPaymentsPage.model_validate(empty.json())
    assert page.data == [] and (page.from_, page.to) == (0, 0)


def test_player_lookup_parses_in_the_official_plugin_and_the_csharp_sdk(
    demo: DemoStore, invoke: Invoke
) -> None:
    from functions.operator import create_ban, get_user

    h = secret_headers(demo.server_secret)
    assert invoke(create_ban.handler, "POST", "/bans", headers=h, body={"user": "Griefer"}).status == 200
    lookup = invoke(get_user.handler, "GET", "/user/Griefer", headers=h).json()
    # MC reads `meta` as a string and `username`; CS reads `meta` as an object ("" is null to it),
    # `name`, and `purchaseTotals` as an array: `[]` is what both parse for a player with none.
    assert lookup["player"]["meta"] == "" and lookup["purchaseTotals"] == []
    assert lookup["player"]["username"] == lookup["player"]["name"] == "Griefer"


def _bx_coupon_command(code: str, **expire: str) -> str:
    """The form BuycraftX's `/buycraft coupon create percentage 10 [limit N]` sends
    (CouponUtil.parseArguments → BuyCraftAPI.createCoupon): cart-wide, every field always there,
    `expire_date` included whatever the expiry (the creation time, plus 1 ms when it never
    expires), dates as `yyyy-MM-dd'T'HH:mm:ssX` in the server's zone."""
    fields = {
        "code": code,
        "effective_on": "cart",
        "discount_type": "percentage",
        "discount_amount": "0",
        "discount_percentage": "10",
        "expire_type": "timestamp",
        "expire_limit": "0",
        "expire_date": "2026-03-15T13:00:00+01",
        "start_date": "2026-03-15T13:00:00+01",
        "basket_type": "both",
        "minimum": "0",
        "redeem_limit": "0",
        "discount_application_method": "0",
        "redeem_unlimited": "true",
        "expire_never": "true",
        "username": "",
        "note": "",
        **expire,
    }
    return urlencode(list(fields.items()))


def test_buycraftx_in_game_coupon_create_never_expiring_and_limit_only(
    demo: DemoStore, invoke: Invoke
) -> None:
    h = {"X-Buycraft-Secret": demo.server_secret, "content-type": "application/x-www-form-urlencoded"}
    never = invoke(
        create_coupon.handler, "POST", "/coupons", raw_body=_bx_coupon_command("BXNEVER"), headers=h
    )
    assert never.status == 200, never.body
    coupon = client_shapes.McCouponData.model_validate(never.json()).data
    assert coupon.expire.expire_never == "true" and coupon.expire.date == views.NO_EXPIRY
    limited_form = _bx_coupon_command(
        "BXLIMIT", expire_type="limit", expire_limit="5", redeem_unlimited="false", redeem_limit="2"
    )
    limited = invoke(create_coupon.handler, "POST", "/coupons", raw_body=limited_form, headers=h)
    assert limited.status == 200, limited.body
    body = limited.json()["data"]
    assert body["expire"] == {
        "redeem_unlimited": "false",
        "expire_never": "true",
        "limit": 5,
        "date": views.NO_EXPIRY,
    }
    assert body["user_limit"] == 2  # BX's `redeem_limit` is the per-player limit
