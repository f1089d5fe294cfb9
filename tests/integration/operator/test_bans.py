"""Bans through the operator's real handlers, by username and by UUID, and the user's ban count."""

from __future__ import annotations

from functions.operator import (
    create_ban,
    get_bans,
    get_user,
)
from tests.integration.operator.support import call, manual_payment
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.threads import in_threads
from webstore import keys


def test_bans_by_username_and_uuid(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(
        invoke, demo.server_secret, ign="Griefer", packages=[{"id": 20}], price=2, email="g@example.test"
    )
    by_name = call(
        invoke,
        demo,
        create_ban,
        "POST",
        "/bans",
        body={"user": "Griefer", "reason": "griefing", "ip": "203.0.113.9"},
    )
    assert by_name.status == 200, by_name.body
    ban = by_name.json()["data"]
    # The queue's form (32 hex digits, no dashes), which BX and MC parse.
    assert ban["user"] == {"ign": "Griefer", "uuid": keys.player_uuid("Griefer").replace("-", "")}
    assert (
        ban["ip"] == "203.0.113.9"
        and ban["payment_email"] == "g@example.test"
        and ban["reason"] == "griefing"
    )
    by_uuid = call(
        invoke, demo, create_ban, "POST", "/bans", body={"user": keys.player_uuid("Griefer").replace("-", "")}
    ).json()["data"]
    assert by_uuid["user"] == ban["user"]
    lookup = call(invoke, demo, get_user, "GET", "/user/Griefer").json()
    assert lookup["player"]["id"] == ban["user"]["uuid"]
    listed = call(invoke, demo, get_bans, "GET", "/bans").json()
    assert [b["id"] for b in listed["data"]] == [by_uuid["id"], ban["id"]]
    assert call(invoke, demo, get_user, "GET", "/user/Griefer").json()["banCount"] == 2
    assert (
        call(invoke, demo, create_ban, "POST", "/bans", body={"user": "Griefer", "ip": "999.1.1.1"}).status
        == 422
    )
    assert call(invoke, demo, create_ban, "POST", "/bans", body={"reason": "x"}).status == 422


def test_concurrent_bans_get_distinct_dense_ids(demo: DemoStore, invoke: Invoke) -> None:
    """The ban id is taken in the ban's transaction: racing bans retry on contention."""
    ids: list[int] = []

    def ban(index: int) -> None:
        response = call(
            invoke, demo, create_ban, "POST", "/bans", body={"user": f"Racer{index}", "ip": "192.0.2.1"}
        )
        assert response.status == 200, response.body
        ids.append(response.json()["data"]["id"])

    in_threads(ban, [(i,) for i in range(5)])
    assert sorted(ids) == [1, 2, 3, 4, 5]
