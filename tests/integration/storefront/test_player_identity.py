"""Player identity through the real handlers (moto + the stand-in name service on 127.0.0.1):
online-mode stores resolve names to Minecraft accounts on the auth page and createBasket,
offline-mode stores keep offline identities, and the two never mix (docs/players.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import get_due_players, get_information
from functions.storefront import add_basket_package, create_basket, get_basket, post_auth_page
from tests.integration.operator.support import manual_payment, secret_headers
from tests.integration.storefront.support import ACCOUNT, assert_error, base
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.name_service import JEB, NOTCH, StandInNameService, set_online_mode
from webstore import keys
from webstore.basket import Basket
from webstore.events import DomainEvent
from webstore.repo.baskets import BasketRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services

RETURN = "http://localhost:3000/basket"
FORM = {"content-type": "application/x-www-form-urlencoded"}
NOTCH_DASHED = "069a79f4-44e9-4726-a5be-fca90e38aaf5"


@pytest.fixture
def online(name_service: StandInNameService, demo: DemoStore) -> StandInNameService:
    """The demo store in Minecraft online mode, the stand-in answering for Notch and jeb_."""
    set_online_mode(demo.table, ACCOUNT)
    return name_service


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    controlled = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = controlled
    return controlled


def submit(invoke: Invoke, ident: str, username: str) -> Response:
    body = urlencode({"returnUrl": RETURN, "username": username})
    return invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=body, headers=FORM)


def registry_items(demo: DemoStore) -> list[dict[str, Any]]:
    """Every item of the platform's player registry (both namespaces and the id sequence)."""
    items = demo.table.client.scan(TableName=demo.table.name)["Items"]
    return sorted(
        (i for i in items if i["PK"]["S"].startswith(("USER", "SEQ#USERS"))), key=lambda i: i["PK"]["S"]
    )


def stored(demo: DemoStore, ident: str) -> Basket:
    return BasketRepository(demo.table).get(ident)


def create(invoke: Invoke, demo: DemoStore, **body: Any) -> Response:
    return invoke(create_basket.handler, "POST", base(demo) + "/baskets", body=body)


# --- the hosted auth page ----------------------------------------------------------------------


def test_online_auth_page_logs_in_the_real_account_with_its_real_casing(
    demo: DemoStore,
    invoke: Invoke,
    online: StandInNameService,
    make_basket: Callable[..., Basket],
    published: list[DomainEvent],
) -> None:
    basket = make_basket()
    response = submit(invoke, basket.ident, "nOtCh")
    assert response.status == 303 and response.headers["location"] == RETURN + "?success=true"
    after = stored(demo, basket.ident)
    assert after.username == "Notch"  # the account's spelling, not what was typed
    user = UserRepository(demo.table).find_online("notch")
    assert user is not None and user.user.uuid == NOTCH_DASHED and user.user.id == after.username_id
    assert online.requests == ["nOtCh"]
    [event] = [e for e in published if e.type == "basket.authenticated"]
    assert event.subject["uuid"] == NOTCH_DASHED and event.subject["username"] == "Notch"
    # The basket API answers with the real casing too.
    got = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{basket.ident}").json()["data"]
    assert got["username"] == "Notch"


def test_online_auth_page_refuses_an_unknown_name_and_writes_nothing(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    before = registry_items(demo)
    response = submit(invoke, basket.ident, "NoSuchPlayer123")
    assert response.status == 422
    assert "There is no Minecraft account named NoSuchPlayer123" in response.body
    assert 'role="alert"' in response.body and 'value="NoSuchPlayer123"' in response.body
    assert registry_items(demo) == before
    assert stored(demo, basket.ident).username is None


@pytest.mark.parametrize("trouble", [503, 429, 500, "timeout", "garbage"])
def test_online_auth_page_says_the_name_service_is_down_and_writes_nothing(
    demo: DemoStore,
    invoke: Invoke,
    online: StandInNameService,
    make_basket: Callable[..., Basket],
    trouble: int | str,
) -> None:
    basket = make_basket()
    before = registry_items(demo)
    online.down = trouble
    response = submit(invoke, basket.ident, "Notch")
    assert response.status == 503
    assert "name service is not answering" in response.body and "try again" in response.body
    assert '<form method="post">' in response.body  # the player can submit again
    assert registry_items(demo) == before
    assert stored(demo, basket.ident).username is None  # no made-up identity
    online.down = None  # back up: the same form works
    assert submit(invoke, basket.ident, "Notch").status == 303
    assert stored(demo, basket.ident).username == "Notch"


def test_a_cached_resolution_is_used_for_30_days_then_resolved_again(
    demo: DemoStore,
    invoke: Invoke,
    online: StandInNameService,
    make_basket: Callable[..., Basket],
    clock: Clock,
) -> None:
    assert submit(invoke, make_basket().ident, "Notch").status == 303
    first = UserRepository(demo.table).find_online("Notch")
    assert submit(invoke, make_basket().ident, "notch").status == 303
    assert online.requests == ["Notch"]  # the second login came from the registry
    online.down = 503
    clock.advance(timedelta(days=29).total_seconds())
    assert submit(invoke, make_basket().ident, "NOTCH").status == 303  # still fresh: no lookup
    clock.advance(timedelta(days=2).total_seconds())
    assert submit(invoke, make_basket().ident, "Notch").status == 503  # stale: must ask, cannot
    online.down = None
    online.accounts["notch"] = (NOTCH[0], "NOTCH")  # the account changed its name's casing
    basket = make_basket()
    assert submit(invoke, basket.ident, "notch").status == 303
    again = UserRepository(demo.table).find_online("notch")
    assert first is not None and again is not None
    assert again.user.id == first.user.id and again.user.username == "NOTCH"  # same player
    assert stored(demo, basket.ident).username == "NOTCH"


def test_a_renamed_account_keeps_its_player_id_under_its_new_name(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    assert submit(invoke, make_basket().ident, "jeb_").status == 303
    before = UserRepository(demo.table).find_online("jeb_")
    online.add(JEB[0], "jeb_renamed")
    assert submit(invoke, make_basket().ident, "JEB_RENAMED").status == 303
    after = UserRepository(demo.table).find_online("jeb_renamed")
    assert before is not None and after is not None
    assert after.user.id == before.user.id and after.user.username == "jeb_renamed"


def test_offline_store_keeps_offline_identities_and_asks_no_one(
    demo: DemoStore, invoke: Invoke, name_service: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    assert submit(invoke, basket.ident, "nOtCh").status == 303
    assert stored(demo, basket.ident).username == "nOtCh"  # as typed: the name is the player
    user = UserRepository(demo.table).find("notch")
    assert user is not None and user.uuid == keys.player_uuid("nOtCh")
    assert name_service.requests == []


def test_an_online_account_and_an_offline_name_spelled_alike_are_different_players(
    demo: DemoStore, invoke: Invoke, name_service: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    offline_basket = make_basket()
    assert submit(invoke, offline_basket.ident, "Notch").status == 303
    set_online_mode(demo.table, ACCOUNT)
    online_basket = make_basket()
    assert submit(invoke, online_basket.ident, "Notch").status == 303
    offline_id, online_id = (
        stored(demo, offline_basket.ident).username_id,
        stored(demo, online_basket.ident).username_id,
    )
    assert offline_id != online_id
    users = UserRepository(demo.table)
    offline_user, online_user = users.find("Notch"), users.find_online("Notch")
    assert offline_user is not None and online_user is not None
    assert offline_user.uuid == keys.player_uuid("Notch") and online_user.user.uuid == NOTCH_DASHED


# --- createBasket -----------------------------------------------------------------------------


def test_online_create_basket_answers_the_real_casing(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    created = create(invoke, demo, username="notch")
    assert created.status == 200, created.body
    assert created.json()["data"]["username"] == "Notch"
    assert UserRepository(demo.table).find("notch") is None  # no offline identity was made


def test_online_create_basket_refuses_an_unknown_name(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    before = registry_items(demo)
    assert_error(create(invoke, demo, username="NoSuchPlayer123"), 422, "username", "no Minecraft account")
    assert registry_items(demo) == before


def test_online_create_basket_while_the_name_service_is_down_is_503_with_retry_after(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    online.down = 429
    before = registry_items(demo)
    response = create(invoke, demo, username="Notch")
    assert_error(response, 503, "username", "name service is not answering")
    assert response.headers["retry-after"] == "30"
    assert registry_items(demo) == before


# --- what the plugins see -----------------------------------------------------------------------


def due_players(invoke: Invoke, demo: DemoStore) -> list[dict[str, Any]]:
    response = invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))
    assert response.status == 200, response.body
    players: list[dict[str, Any]] = response.json()["players"]
    return players


def test_online_due_players_carry_the_accounts_real_uuid_as_32_hex(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    manual_payment(invoke, demo.server_secret, ign="notch")
    [player] = due_players(invoke, demo)
    assert player["name"] == "Notch" and player["uuid"] == NOTCH[0]
    assert re.fullmatch(r"[0-9a-f]{32}", player["uuid"])  # what BuycraftX accepts
    information = invoke(
        get_information.handler, "GET", "/information", headers=secret_headers(demo.server_secret)
    )
    assert information.json()["account"]["online_mode"] is True


def test_online_manual_payment_for_an_unknown_name_is_refused_on_ign(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    from functions.operator import create_payment

    response = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        body={"ign": "NoSuchPlayer123", "packages": [{"id": 10}], "price": 1, "note": ""},
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 422 and "ign" in response.body


def test_offline_due_players_carry_the_names_offline_uuid_as_32_hex(
    demo: DemoStore, invoke: Invoke, name_service: StandInNameService
) -> None:
    manual_payment(invoke, demo.server_secret, ign="Notch")
    [player] = due_players(invoke, demo)
    assert player["uuid"] == keys.player_uuid("Notch").replace("-", "") == "b50ad385829d3141a2167e7d7539ba7f"
    information = invoke(
        get_information.handler, "GET", "/information", headers=secret_headers(demo.server_secret)
    )
    assert information.json()["account"]["online_mode"] is False
    assert name_service.requests == []


def test_online_operator_calls_naming_a_player_use_the_real_account(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    from functions.operator import create_ban, update_payment

    headers = secret_headers(demo.server_secret)
    ban = invoke(create_ban.handler, "POST", "/bans", body={"user": "notch", "reason": "x"}, headers=headers)
    assert ban.status == 200, ban.body
    assert ban.json()["data"]["user"] == {"ign": "Notch", "uuid": NOTCH_DASHED.replace("-", "")}
    txn = manual_payment(invoke, demo.server_secret, ign="Notch")["txn_id"]
    moved = invoke(
        update_payment.handler, "PUT", f"/payments/{txn}", body={"username": "JEB_"}, headers=headers
    )
    assert moved.status == 200, moved.body
    assert moved.json()["player"]["name"] == "jeb_" and moved.json()["player"]["uuid"] == JEB[0]


# --- first logins racing, gifts and checkout links -------------------------------------------


@pytest.mark.parametrize("mode", ["offline", "online"])
def test_concurrent_first_logins_of_one_player_agree_on_one_id(
    demo: DemoStore,
    invoke: Invoke,
    name_service: StandInNameService,
    make_basket: Callable[..., Basket],
    mode: str,
) -> None:
    from tests.support.threads import in_threads

    if mode == "online":
        set_online_mode(demo.table, ACCOUNT)
    baskets = [make_basket() for _ in range(4)]
    statuses: list[int] = []
    in_threads(
        lambda ident: statuses.append(submit(invoke, ident, "jeb_").status), [(b.ident,) for b in baskets]
    )
    assert statuses == [303] * 4
    ids = {stored(demo, b.ident).username_id for b in baskets}
    assert len(ids) == 1 and None not in ids
    created = [create(invoke, demo, username="JEB_") for _ in range(2)]
    assert {c.json()["data"]["username_id"] for c in created} == ids


def test_online_gift_recipient_and_checkout_link_are_real_accounts(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    from functions.operator import create_checkout_link
    from tests.integration.storefront.support import add

    basket = make_basket()
    assert submit(invoke, basket.ident, "notch").status == 303
    gifted = add(invoke, basket.ident, package_id=10, target_username_id="JEB_")
    assert gifted.status == 200, gifted.body
    [line] = stored(demo, basket.ident).lines
    assert line.gift_username == "jeb_"
    unknown = add(invoke, basket.ident, package_id=10, target_username_id="NoSuchPlayer123")
    assert_error(unknown, 422, "target_username_id", "no Minecraft account")

    link = invoke(
        create_checkout_link.handler,
        "POST",
        "/checkout",
        body={"package_id": 10, "username": "notch"},
        headers=secret_headers(demo.server_secret),
    )
    assert link.status == 201, link.body
    ident = link.json()["url"].rsplit("/", 1)[-1]
    assert stored(demo, ident).username == "Notch"
    assert online.requests == ["notch", "JEB_", "NoSuchPlayer123"]  # notch came from the registry


def test_online_gift_to_the_uuid_of_an_account_the_store_has_never_seen(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    """NPM's own gifting test: `target_username_id` a Minecraft UUID (`c53db931…`-style, 32
    hex) of a player who never bought here: the name service names the account."""
    ident = invoke(create_basket.handler, "POST", f"{base(demo)}/baskets", body={}).json()["data"]["ident"]
    path = f"/api/baskets/{ident}/packages"
    for target in (NOTCH[0], NOTCH_DASHED):
        added = invoke(
            add_basket_package.handler, "POST", path, body={"package_id": 10, "target_username_id": target}
        )
        assert added.status == 200, added.body
        [line] = added.json()["data"]["packages"]
        assert line["in_basket"]["gift_username"] == "Notch"
    unknown = invoke(
        add_basket_package.handler, "POST", path, body={"package_id": 10, "target_username_id": "ab" * 16}
    )
    assert unknown.status == 422 and "target_username_id" in unknown.json()["detail"]
