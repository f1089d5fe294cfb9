"""The command queue through the real handlers: throttled cycles, `more` paging, deletes."""

from __future__ import annotations

from typing import Any

import pytest

from functions.operator import delete_commands, get_due_players, get_offline_commands, get_online_commands
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.threads import in_threads
from webstore import keys
from webstore.operator import queue as queue_module


def poll(invoke: Invoke, demo: DemoStore) -> Any:
    return invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))


def online(invoke: Invoke, demo: DemoStore, player_id: int) -> list[dict[str, Any]]:
    response = invoke(
        get_online_commands.handler,
        "GET",
        f"/queue/online-commands/{player_id}",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200
    return list(response.json()["commands"])


def offline(invoke: Invoke, demo: DemoStore) -> list[dict[str, Any]]:
    response = invoke(
        get_offline_commands.handler,
        "GET",
        "/queue/offline-commands",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200
    assert response.json()["meta"] == {"limited": False}
    return list(response.json()["commands"])


def delete(invoke: Invoke, demo: DemoStore, ids: list[int], **kwargs: Any) -> int:
    if "raw_body" not in kwargs:
        kwargs["body"] = {"ids": ids}
    headers = {**secret_headers(demo.server_secret), **kwargs.pop("headers", {})}
    response = invoke(delete_commands.handler, "DELETE", "/queue", headers=headers, **kwargs)
    assert response.body == ""
    return response.status


def test_queue_shapes_and_placeholders(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )
    response = poll(invoke, demo)
    assert response.status == 200
    assert response.headers["content-type"] == "application/json"
    body = response.json()
    assert body["meta"] == {"execute_offline": True, "next_check": 60, "more": False}
    assert body["players"] == [
        {"id": body["players"][0]["id"], "name": "Steve", "uuid": keys.player_uuid("Steve").replace("-", "")}
    ]

    player_id = body["players"][0]["id"]
    [sword] = online(invoke, demo, player_id)
    assert sword["command"] == "give {username} diamond_sword 1"  # placeholders left for the plugin
    assert sword["conditions"] == {"delay": 0, "slots": 1}
    assert sword["package"] == 10 and sword["payment"] == 1
    assert sword["player"] == {
        "id": player_id,
        "name": "Steve",
        "uuid": keys.player_uuid("Steve").replace("-", ""),
    }
    assert set(sword) == {"id", "command", "payment", "package", "conditions", "player"}
    [coins] = offline(invoke, demo)
    assert coins["command"] == "eco give {username} 1000"
    full = invoke(
        get_online_commands.handler,
        "GET",
        f"/queue/online-commands/{player_id}",
        headers=secret_headers(demo.server_secret),
    ).json()
    assert full["player"]["id"] == player_id and full["player"]["username"] == "Steve"

    # Server 2 has its own queue: the sword's second command, with its delay.
    server2 = secret_headers(demo.result.server_secrets[2] or "")
    due2 = invoke(get_due_players.handler, "GET", "/queue", headers=server2).json()
    assert due2["meta"]["execute_offline"] is False
    [sword2] = invoke(
        get_online_commands.handler, "GET", f"/queue/online-commands/{player_id}", headers=server2
    ).json()["commands"]
    assert sword2["conditions"] == {"delay": 5, "slots": 1}


def test_throttle_429_before_next_check_then_success(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    assert poll(invoke, demo).status == 200
    clock.advance(30)
    early = poll(invoke, demo)
    assert early.status == 429
    assert early.headers["retry-after"] == "30"
    assert early.json() == {"error_code": 429, "error_message": early.json()["error_message"]}
    clock.advance(29)
    assert poll(invoke, demo).status == 429
    clock.advance(1)
    assert poll(invoke, demo).status == 200
    assert poll(invoke, demo).status == 429


def test_next_check_override_setting(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webstore.services import get_services

    monkeypatch.setattr(get_services().settings, "next_check_override", 2)
    assert poll(invoke, demo).json()["meta"]["next_check"] == 2
    assert poll(invoke, demo).headers["retry-after"] == "2"
    clock.advance(2)
    assert poll(invoke, demo).status == 200


def test_more_pages_through_every_due_player_once(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_module, "DUE_PAGE_SIZE", 3)
    names = [f"Player{i:02d}" for i in range(8)]
    for name in names:
        manual_payment(invoke, demo.server_secret, ign=name, packages=[{"id": 20}], price=2)

    seen: list[str] = []
    calls = 0
    while True:  # what a plugin does: loop while `more`, no parameters
        response = poll(invoke, demo)
        assert response.status == 200, response.body
        calls += 1
        body = response.json()
        seen += [p["name"] for p in body["players"]]
        if not body["meta"]["more"]:
            break
        assert calls < 10
    assert calls == 3
    assert sorted(seen) == sorted(names)  # each once
    assert poll(invoke, demo).status == 429  # the cycle ended: the throttle applies again
    clock.advance(60)
    assert len(poll(invoke, demo).json()["players"]) == 3  # a new cycle starts at the beginning


def test_a_stale_cycle_starts_over(
    demo: DemoStore, invoke: Invoke, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(queue_module, "DUE_PAGE_SIZE", 2)
    for name in ("Anna", "Bert", "Carl"):
        manual_payment(invoke, demo.server_secret, ign=name, packages=[{"id": 20}], price=2)
    first = poll(invoke, demo).json()
    assert first["meta"]["more"] is True
    clock.advance(61)  # the client never came back within next_check
    again = poll(invoke, demo).json()
    assert [p["name"] for p in again["players"]] == [p["name"] for p in first["players"]]


def test_delete_is_idempotent_and_deleted_commands_never_return(
    demo: DemoStore, invoke: Invoke, clock: Clock
) -> None:
    manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )
    player_id = poll(invoke, demo).json()["players"][0]["id"]
    [sword] = online(invoke, demo, player_id)
    [coins] = offline(invoke, demo)
    assert delete(invoke, demo, [sword["id"]]) == 204
    assert delete(invoke, demo, [sword["id"]]) == 204  # twice: not an error
    assert delete(invoke, demo, [999_999]) == 204  # unknown id: ignored
    assert online(invoke, demo, player_id) == []
    # Form-encoded, as older plugins send it.
    assert (
        delete(
            invoke,
            demo,
            [],
            raw_body=f"ids[]={coins['id']}",
            headers={"content-type": "application/x-www-form-urlencoded"},
        )
        == 204
    )
    assert offline(invoke, demo) == []
    clock.advance(60)
    body = poll(invoke, demo).json()
    assert body["players"] == [] and body["meta"]["execute_offline"] is False
    # The idle due item was cleaned up: the next cycle reads nothing for it.
    clock.advance(60)
    assert poll(invoke, demo).json()["players"] == []


@pytest.mark.parametrize(
    ("body", "raw"),
    [
        ({"ids": []}, None),
        ({"ids": ["x"]}, None),
        ({"nope": [1]}, None),
        (None, "{not json"),
        ({"ids": [0]}, None),
    ],
)
def test_delete_with_bad_ids_is_422_naming_ids(
    demo: DemoStore, invoke: Invoke, body: Any, raw: str | None
) -> None:
    kwargs: dict[str, Any] = {"raw_body": raw} if raw is not None else {"body": body}
    response = invoke(
        delete_commands.handler, "DELETE", "/queue", headers=secret_headers(demo.server_secret), **kwargs
    )
    assert response.status == 422
    assert "ids" in response.json()["error_message"]


def test_concurrent_overlapping_deletes(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    # 12 offline commands (package 11 x 12) and 12 online ones (package 20 x 12).
    manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 11, "options": {"world": "survival"}}] * 12 + [{"id": 20}] * 12,
        price=50,
    )
    player_id = poll(invoke, demo).json()["players"][0]["id"]
    online_ids = [c["id"] for c in online(invoke, demo, player_id)]
    offline_ids = [c["id"] for c in offline(invoke, demo)]
    assert len(online_ids) == 12 and len(offline_ids) == 12
    everything = online_ids + offline_ids
    batches = [everything, everything[::-1], everything[:10], everything[5:20], everything[12:], everything]
    statuses: list[int] = []
    in_threads(lambda ids: statuses.append(delete(invoke, demo, ids)), [(b,) for b in batches])
    assert statuses == [204] * len(batches)
    assert online(invoke, demo, player_id) == [] and offline(invoke, demo) == []
    # The counters went to zero exactly (no double decrement): nothing due, nothing offline.
    state = demo.table.get(keys.key(keys.queue_pk(1, 1), keys.QUEUE_STATE), consistent=True) or {}
    due = demo.table.get(keys.key(keys.queue_pk(1, 1), keys.due_sk(player_id)), consistent=True) or {}
    assert int(state["offline_pending"]) == 0
    assert int(due.get("pending", 0)) == 0
    clock.advance(60)
    assert poll(invoke, demo).json() == {
        "meta": {"execute_offline": False, "next_check": 60, "more": False},
        "players": [],
    }


def test_delete_with_the_ids_in_the_query_string(demo: DemoStore, invoke: Invoke, clock: Clock) -> None:
    """`DELETE /queue?ids[]=1&ids[]=2` with no body (a public plugin client sends it so)."""
    manual_payment(
        invoke,
        demo.server_secret,
        ign="Steve",
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )
    player_id = poll(invoke, demo).json()["players"][0]["id"]
    [sword] = online(invoke, demo, player_id)
    [coins] = offline(invoke, demo)
    response = invoke(
        delete_commands.handler,
        "DELETE",
        "/queue",
        query=[("ids[]", str(sword["id"])), ("ids[]", str(coins["id"]))],
        headers=secret_headers(demo.server_secret),
        raw_body="",
    )
    assert response.status == 204 and response.body == ""
    assert online(invoke, demo, player_id) == [] and offline(invoke, demo) == []
    bad = invoke(
        delete_commands.handler,
        "DELETE",
        "/queue",
        query=[("ids[]", "x")],
        headers=secret_headers(demo.server_secret),
        raw_body="",
    )
    assert bad.status == 422 and "ids" in bad.json()["error_message"]
