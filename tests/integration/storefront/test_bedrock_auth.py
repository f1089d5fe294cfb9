"""Bedrock players of a store whose Floodgate runs without a prefix (`bedrock_unprefixed`;
docs/decisions.md, "Bedrock names") at the storefront's doors, through the real handlers (moto
and the stand-in name service on 127.0.0.1): the hosted auth page, createBasket, a gift, a
checkout link and a payment. A bare gamertag no Java name can be is the Bedrock player's; in an
online-mode store a name both may have is the Java account if the name service knows one, else
the Bedrock player; a store without the setting refuses a spaced name with the Java rule."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import create_checkout_link, get_due_players
from functions.storefront import create_basket, get_auth_page, post_auth_page
from tests.integration.operator.support import manual_payment, secret_headers
from tests.integration.storefront.support import ACCOUNT, add, assert_error, base
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.name_service import JEB, StandInNameService, set_bedrock_names, set_online_mode
from webstore import keys
from webstore.basket import Basket
from webstore.repo.baskets import BasketRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services

RETURN = "http://localhost:3000/basket"
FORM = {"content-type": "application/x-www-form-urlencoded"}
JAVA_RULE = "A username is 3 to 16 letters, digits or underscores"


@pytest.fixture
def unprefixed(demo: DemoStore) -> DemoStore:
    set_bedrock_names(demo.table, ACCOUNT, unprefixed=True)
    return demo


@pytest.fixture
def online(unprefixed: DemoStore, name_service: StandInNameService) -> StandInNameService:
    """The demo store in online mode, Floodgate without a prefix, the stand-in knowing Notch, jeb_."""
    set_online_mode(unprefixed.table, ACCOUNT)
    return name_service


def submit(invoke: Invoke, ident: str, username: str) -> Response:
    body = urlencode({"returnUrl": RETURN, "username": username})
    return invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=body, headers=FORM)


def stored(demo: DemoStore, ident: str) -> Basket:
    return BasketRepository(demo.table).get(ident)


def checkout_link(invoke: Invoke, demo: DemoStore, username: str, **target: int) -> Response:
    body = {**(target or {"package_id": 10}), "username": username}
    headers = secret_headers(demo.server_secret)
    return invoke(create_checkout_link.handler, "POST", "/checkout", body=body, headers=headers)


def registry_items(demo: DemoStore) -> list[dict[str, Any]]:
    items = demo.table.client.scan(TableName=demo.table.name)["Items"]
    return sorted(
        (i for i in items if i["PK"]["S"].startswith(("USER", "SEQ#USERS"))), key=lambda i: i["PK"]["S"]
    )


def test_the_auth_page_takes_the_java_account_first_then_the_bedrock_player(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    java = make_basket()
    assert submit(invoke, java.ident, "JEB_").status == 303
    assert stored(demo, java.ident).username == "jeb_"  # the account, its real casing
    bedrock = make_basket()
    answer = submit(invoke, bedrock.ident, "Big_Tree")  # no account has it: a Bedrock player
    assert answer.status == 303 and answer.headers["location"] == RETURN + "?success=true"
    after = stored(demo, bedrock.ident)
    user = UserRepository(demo.table).find("Big_Tree")
    assert user is not None and user.uuid == keys.player_uuid("Big_Tree")
    assert (after.username, after.username_id) == ("Big_Tree", user.id)
    spaced = make_basket()
    assert submit(invoke, spaced.ident, "Big Tree").status == 303  # a space: only Bedrock's
    assert stored(demo, spaced.ident).username == "Big Tree"
    assert online.requests == ["JEB_", "Big_Tree"]
    resolved = UserRepository(demo.table).find_online("jeb_")
    assert resolved is not None and resolved.user.uuid.replace("-", "") == JEB[0]


def test_the_name_service_down_refuses_a_name_both_may_have_instead_of_guessing(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    online.down = 503
    before = registry_items(demo)
    basket = make_basket()
    answer = submit(invoke, basket.ident, "Big_Tree")
    assert answer.status == 503 and "name service is not answering" in answer.body
    assert registry_items(demo) == before and stored(demo, basket.ident).username is None
    assert submit(invoke, basket.ident, "Big Tree").status == 303  # no Java name: nothing to ask


def test_create_basket_a_gift_and_a_checkout_link_take_an_unprefixed_bedrock_player(
    demo: DemoStore, invoke: Invoke, online: StandInNameService
) -> None:
    created = invoke(create_basket.handler, "POST", base(demo) + "/baskets", body={"username": "Steve Jobs"})
    assert created.status == 200, created.body
    assert created.json()["data"]["username"] == "Steve Jobs"
    ident = created.json()["data"]["ident"]
    gifted = add(invoke, ident, package_id=10, target_username_id="Big Tree")
    assert gifted.status == 200, gifted.body
    [line] = stored(demo, ident).lines
    assert line.gift_username == "Big Tree"
    link = checkout_link(invoke, demo, "Steve_Jobs")  # no account has it: the Bedrock player
    assert link.status == 201, link.body
    assert stored(demo, link.json()["url"].rsplit("/", 1)[-1]).username == "Steve_Jobs"
    refused = add(invoke, ident, package_id=10, target_username_id=".Big Tree")
    assert_error(refused, 422, "target_username_id", "a Bedrock player's is their gamertag")
    assert online.requests == ["Steve_Jobs"]


def test_a_payment_for_a_player_taken_for_a_bedrock_one_asks_the_name_service_nothing_more(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    basket = make_basket()
    assert submit(invoke, basket.ident, "Big_Tree").status == 303
    manual_payment(invoke, demo.server_secret, ign="Big_Tree")
    due = invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))
    [player] = due.json()["players"]
    assert player["name"] == "Big_Tree" and player["uuid"] == keys.player_uuid("Big_Tree").replace("-", "")
    assert player["id"] == stored(demo, basket.ident).username_id
    assert online.requests == ["Big_Tree"]  # the payment took the player the log-in found


def test_a_name_an_account_gave_up_is_the_bedrock_players_once_the_cache_is_stale(
    demo: DemoStore, invoke: Invoke, online: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    clock = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = clock
    online.add("5f4dcc3b5aa765d61d8327deb882cf99", "Big_Tree")
    assert submit(invoke, make_basket().ident, "Big_Tree").status == 303  # the Java account
    java = UserRepository(demo.table).find_online("Big_Tree")
    assert java is not None
    del online.accounts["big_tree"]  # the account took another name
    clock.advance(timedelta(days=31).total_seconds())  # the cached answer is stale: ask again
    basket = make_basket()
    assert submit(invoke, basket.ident, "Big_Tree").status == 303
    bedrock = UserRepository(demo.table).find("Big_Tree")
    assert bedrock is not None and stored(demo, basket.ident).username_id == bedrock.id != java.user.id
    assert UserRepository(demo.table).find_online("Big_Tree") is None  # the account's answer forgotten
    manual_payment(invoke, demo.server_secret, ign="Big_Tree")  # takes the registry, asks no one
    due = invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))
    assert [p["id"] for p in due.json()["players"]] == [bedrock.id]
    assert online.requests == ["Big_Tree", "Big_Tree"]


def test_a_store_without_the_setting_refuses_a_spaced_name_at_every_door_with_the_java_rule(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    before = registry_items(demo)
    created = invoke(create_basket.handler, "POST", base(demo) + "/baskets", body={"username": "Steve Jobs"})
    assert_error(created, 422, "username", JAVA_RULE)
    basket = make_basket()
    page = submit(invoke, basket.ident, "Steve Jobs")
    assert page.status == 422 and JAVA_RULE in page.body and "gamertag" not in page.body
    assert_error(
        add(invoke, basket.ident, package_id=10, target_username_id="Al"),
        422,
        "target_username_id",
        JAVA_RULE,
    )
    link = checkout_link(invoke, demo, "Steve Jobs")  # the operator interface's error shape
    assert link.status == 422 and link.json() == {"error_code": 422, "error_message": JAVA_RULE}
    link = checkout_link(invoke, demo, "Steve Jobs", category_id=1)  # a category's link names no player
    assert link.status == 422 and link.json() == {"error_code": 422, "error_message": JAVA_RULE}
    assert registry_items(demo) == before


def auth_page(invoke: Invoke, ident: str) -> str:
    page = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert page.status == 200, page.body
    return page.body


def test_the_auth_page_tells_bedrock_players_how_to_type_their_name(
    demo: DemoStore, invoke: Invoke, make_basket: Callable[..., Basket]
) -> None:
    """Its help under the field: the Java rule alone in a Java-only store, then how a Bedrock
    player types their name (a prefix with letters, or none); the field takes a prefixed name."""
    ident = make_basket().ident
    java_only = auth_page(invoke, ident)
    assert "Your in-game name: 3 to 16 letters, digits or underscores.</p>" in java_only
    assert "Bedrock" not in java_only
    set_bedrock_names(demo.table, ACCOUNT, prefix="BE_")
    prefixed = auth_page(invoke, ident)
    assert (
        "Your in-game name: 3 to 16 letters, digits or underscores. Bedrock players: your gamertag after"
        " the prefix BE_, spaces included (for example BE_Steve Jobs).</p>"
    ) in prefixed
    assert 'maxlength="24"' in prefixed  # the longest prefix and gamertag fit
    answer = submit(invoke, ident, "BE_Steve Jobs")
    assert answer.status == 303, answer.body
    assert stored(demo, ident).username == "BE_Steve Jobs"
    set_bedrock_names(demo.table, ACCOUNT, unprefixed=True)
    bare = auth_page(invoke, make_basket().ident)
    assert "underscores. Bedrock players: your gamertag, spaces included.</p>" in bare


def test_an_online_auth_page_with_a_prefix_of_letters_tries_java_first_then_takes_the_bedrock_player(
    demo: DemoStore, invoke: Invoke, name_service: StandInNameService, make_basket: Callable[..., Basket]
) -> None:
    set_bedrock_names(demo.table, ACCOUNT, prefix="BE_")
    set_online_mode(demo.table, ACCOUNT)
    name_service.add("5f4dcc3b5aa765d61d8327deb882cf99", "BE_Notch")
    java = make_basket()
    assert submit(invoke, java.ident, "be_NOTCH").status == 303
    assert stored(demo, java.ident).username == "BE_Notch"  # the account, its real casing
    bedrock = make_basket()
    assert submit(invoke, bedrock.ident, "BE_Big_Tree").status == 303  # no account: Bedrock's
    user = UserRepository(demo.table).find("BE_Big_Tree")
    assert user is not None and user.uuid == keys.player_uuid("BE_Big_Tree")
    assert stored(demo, bedrock.ident).username_id == user.id
    assert submit(invoke, make_basket().ident, "BE_Big Tree").status == 303  # only Bedrock's
    assert name_service.requests == ["be_NOTCH", "BE_Big_Tree"]
