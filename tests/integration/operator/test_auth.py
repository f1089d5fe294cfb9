"""Operator secrets through the real handlers: every route refuses a missing or wrong secret,
a secret sees only its own account (and its own server's queue), guessing gets 429."""

from __future__ import annotations

import re

import pytest

from functions.operator import (
    create_coupon,
    delete_commands,
    delete_coupon,
    get_coupon,
    get_due_players,
    get_information,
    get_offline_commands,
    get_online_commands,
    get_payment,
    get_user,
    update_payment,
)
from functions.routes import operations
from functions.runtime import Interface
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.catalog_import import ImportResult

SAMPLE_PARAMS = {
    "transaction": "tbx-1-00000000",
    "package": "10",
    "coupon_id": "1",
    "community_goal": "1",
    "player_id": "1",
    "user": "Steve",
    "code": "WELCOME10",
    "gift_card_id": "1",
    "player": "Steve",
    "reference": "tbx-1-00000000",
}
OPERATOR_ROUTES = operations(Interface.OPERATOR)


def concrete(path: str) -> str:
    return re.sub(r"\{(\w+)\}", lambda m: SAMPLE_PARAMS[m.group(1)], path)


@pytest.mark.parametrize("operation", OPERATOR_ROUTES, ids=[o.route.operation_id for o in OPERATOR_ROUTES])
@pytest.mark.parametrize("secret", [None, "0" * 40], ids=["missing", "wrong"])
def test_missing_or_wrong_secret_is_403_on_every_route(
    demo: DemoStore, invoke: Invoke, operation: object, secret: str | None
) -> None:
    route = operation.route  # type: ignore[attr-defined]
    module = __import__(operation.module, fromlist=["handler"])  # type: ignore[attr-defined]
    headers = {} if secret is None else {"X-Tebex-Secret": secret}
    body = {} if route.method in ("POST", "PUT") else None
    response = invoke(module.handler, route.method, concrete(route.path), headers=headers, body=body)
    assert response.status == 403, (route.operation_id, response.body)
    assert response.headers["content-type"] == "application/json"
    error = response.json()
    assert error["error_code"] == 403
    assert error["error_message"]


def test_both_secret_headers_are_accepted(demo: DemoStore, invoke: Invoke) -> None:
    for header in ("X-Service-Secret", "X-Tebex-Secret"):
        response = invoke(
            get_information.handler, "GET", "/information", headers=secret_headers(demo.server_secret, header)
        )
        assert response.status == 200
        body = response.json()
        assert body["account"]["id"] == 1
        assert body["account"]["currency"] == {"iso_4217": "USD", "symbol": "$"}
        assert body["server"] == {"id": 1, "name": "Survival"}
        assert set(body["account"]) == {
            "id",
            "domain",
            "name",
            "currency",
            "online_mode",
            "game_type",
            "log_events",
        }


def test_doubled_slash_is_served(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(
        get_information.handler, "GET", "//information", headers=secret_headers(demo.server_secret)
    )
    assert response.status == 200


def test_guessing_secrets_blocks_the_address_even_for_a_right_secret(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webstore.services import get_services

    settings = get_services().settings
    monkeypatch.setattr(settings, "secret_failures_allowed", 3)
    monkeypatch.setattr(settings, "secret_failure_window_seconds", 120)
    guesser, bystander = "198.51.100.7", "198.51.100.8"

    def info(secret: str, ip: str) -> int:
        return invoke(
            get_information.handler, "GET", "/information", headers=secret_headers(secret), source_ip=ip
        ).status

    assert [info(keys.new_secret(), guesser) for _ in range(3)] == [403, 403, 403]
    blocked = invoke(
        get_information.handler, "GET", "/information", headers=secret_headers("x" * 40), source_ip=guesser
    )
    assert blocked.status == 429
    assert 0 < int(blocked.headers["retry-after"]) <= 120
    assert blocked.json()["error_code"] == 429
    assert info(demo.server_secret, guesser) == 429  # blocked while the window lasts
    assert info(demo.server_secret, bystander) == 200  # only that address
    # Another instance (no in-process memory) reads the mark from the table.
    from webstore.operator import auth

    auth.cache.clear()
    assert info(demo.server_secret, guesser) == 429
    clock.advance(121)
    assert info(demo.server_secret, guesser) == 200
    assert info("y" * 40, guesser) == 403  # a new window starts counting from one


def test_secret_of_another_account_sees_nothing_of_this_one(
    demo: DemoStore, invoke: Invoke, other_store: ImportResult, clock: Clock
) -> None:
    mine = secret_headers(demo.server_secret)
    theirs = secret_headers(other_store.server_secrets[1] or "")
    payment = manual_payment(
        invoke,
        demo.server_secret,
        ign="Alex",
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )
    txn = payment["txn_id"]

    # Payment: not found for the other account, read or write.
    assert invoke(get_payment.handler, "GET", f"/payments/{txn}", headers=theirs).status == 404
    assert (
        invoke(
            update_payment.handler, "PUT", f"/payments/{txn}", headers=theirs, body={"status": "refund"}
        ).status
        == 404
    )
    assert invoke(get_payment.handler, "GET", f"/payments/{txn}", headers=mine).json()["status"] == "Complete"

    # Coupon: created in account 1, invisible and undeletable from account 2.
    created = invoke(
        create_coupon.handler,
        "POST",
        "/coupons",
        headers=mine,
        body={
            "code": "ONLYMINE",
            "effective_on": "cart",
            "discount_type": "percentage",
            "discount_percentage": 5,
        },
    ).json()["data"]
    path = f"/coupons/{created['id']}"
    assert invoke(get_coupon.handler, "GET", path, headers=theirs).status == 404
    assert invoke(get_coupon.handler, "GET", "/coupons/ONLYMINE", headers=theirs).status == 404
    assert invoke(delete_coupon.handler, "DELETE", path, headers=theirs).status == 404
    assert invoke(get_coupon.handler, "GET", path, headers=mine).json()["data"]["code"] == "ONLYMINE"

    # Player: known to account 1 only.
    assert invoke(get_user.handler, "GET", "/user/Alex", headers=theirs).status == 404
    assert invoke(get_user.handler, "GET", "/user/Alex", headers=mine).status == 200

    # Commands: the other account's secret neither sees nor deletes them.
    due = invoke(get_due_players.handler, "GET", "/queue", headers=mine).json()
    player_id = due["players"][0]["id"]
    online = invoke(
        get_online_commands.handler, "GET", f"/queue/online-commands/{player_id}", headers=mine
    ).json()
    offline = invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=mine).json()
    ids = [c["id"] for c in online["commands"] + offline["commands"]]
    assert len(ids) == 2
    assert (
        invoke(
            get_online_commands.handler, "GET", f"/queue/online-commands/{player_id}", headers=theirs
        ).json()["commands"]
        == []
    )
    assert (
        invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=theirs).json()[
            "commands"
        ]
        == []
    )
    assert (
        invoke(delete_commands.handler, "DELETE", "/queue", headers=theirs, body={"ids": ids}).status == 204
    )
    # ...nor does another server of the same account.
    server2 = secret_headers(demo.result.server_secrets[2] or "")
    assert (
        invoke(delete_commands.handler, "DELETE", "/queue", headers=server2, body={"ids": ids}).status == 204
    )
    still = invoke(
        get_online_commands.handler, "GET", f"/queue/online-commands/{player_id}", headers=mine
    ).json()
    assert [c["id"] for c in still["commands"]] == [c["id"] for c in online["commands"]]
    assert (
        len(
            invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=mine).json()[
                "commands"
            ]
        )
        == 1
    )
