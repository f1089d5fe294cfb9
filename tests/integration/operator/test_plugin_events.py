"""POST /events as each plugin sends it, through the real handler, and the bans that use what
it records (the player's last known address)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from functions.operator import create_ban, create_events
from tests.integration.operator.support import secret_headers
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.operator.player_events import MAX_EVENTS
from webstore.repo.player_events import PlayerEventRepository

MC_UUID = "069a79f4-44e9-4726-a5be-fca90e38aaf5"


def _post(invoke: Invoke, demo: DemoStore, events: Any, header: str = "X-Tebex-Secret") -> Any:
    raw = json.dumps(events, indent=2)
    headers = {header: demo.server_secret, "content-type": "application/json"}
    return invoke(create_events.handler, "POST", "/events", raw_body=raw, headers=headers)


def test_official_plugin_join_events_are_204_and_stored_compactly(
    demo: DemoStore, invoke: Invoke, clock: Clock
) -> None:
    events = [
        {
            "username_id": MC_UUID,
            "username": "Notch",
            "ip": "198.51.100.7",
            "event_type": "server.join",
            "event_date": "Mon Nov 23 15:05:03 UTC 2026",
        },
        {
            "username_id": "853c80ef-3c37-49fd-aa49-938b674adae6",
            "username": "jeb_",
            "ip": "198.51.100.8",
            "event_type": "server.join",
            "event_date": "Mon Nov 23 16:05:03 CET 2026",  # a local zone: the received time
        },
    ]
    response = _post(invoke, demo, events)
    assert response.status == 204 and response.body == ""
    [batch] = PlayerEventRepository(demo.table).batches(1, 1)
    stored = json.loads(batch["events"])
    sent_at = int(datetime(2026, 11, 23, 15, 5, 3, tzinfo=UTC).timestamp())
    assert stored[0] == ["j", sent_at, MC_UUID, "Notch", "198.51.100.7"]
    assert stored[1][1] == int(clock.now.timestamp())
    assert batch["count"] == 2 and int(batch["expires_at"]) == int(clock.now.timestamp()) + 30 * 86_400


def test_buycraftx_and_csharp_event_batches_are_accepted(demo: DemoStore, invoke: Invoke) -> None:
    bx = [
        {
            "username_id": MC_UUID.replace("-", ""),
            "username": "Notch",
            "ip": "198.51.100.9",
            "event_type": kind,
            "event_date": "2024-01-05T11:06:42+01",
        }
        for kind in ("server.join", "server.leave")
    ]
    assert _post(invoke, demo, bx, header="X-Buycraft-Secret").status == 204
    cs = [
        {
            "username_id": "76561198042467022",
            "event_type": "server.join",
            "event_date": "2026-11-23T15:05:03.1234567Z",
            "ip": "2001:db8::1",
        }
    ]
    assert _post(invoke, demo, cs).status == 204
    assert _post(invoke, demo, []).status == 204
    assert len(PlayerEventRepository(demo.table).batches(1, 1)) == 2  # an empty batch stores nothing


def test_official_plugin_gets_413_for_a_batch_too_large(demo: DemoStore, invoke: Invoke) -> None:
    event = {"username_id": "1", "ip": "", "event_type": "server.join", "event_date": "2026-11-23T15:05:03Z"}
    assert _post(invoke, demo, [event] * (MAX_EVENTS + 1)).status == 413
    huge = [{**event, "username": "x" * 60}] * 900  # over the body limit
    assert _post(invoke, demo, huge).status == 413


def test_event_batches_with_bad_entries_name_the_entry(demo: DemoStore, invoke: Invoke) -> None:
    good = {"username_id": "1", "event_type": "server.join", "event_date": "2026-11-23T15:05:03Z"}
    for events, field in (
        ({"not": "a list"}, "body"),
        ([good, "nope"], "[1]"),
        ([{**good, "event_type": "server.quit"}], "[0].event_type"),
        ([{**good, "username_id": None}], "[0].username_id"),
        ([{**good, "event_date": "2026-99-99"}], "[0].event_date"),
    ):
        response = _post(invoke, demo, events)
        assert response.status == 422, (events, response.body)
        assert field in response.json()["error_message"]


def test_official_plugin_ban_without_ip_bans_the_last_known_address(demo: DemoStore, invoke: Invoke) -> None:
    joins = [
        {
            "username_id": MC_UUID,
            "username": "Notch",
            "ip": ip,
            "event_type": "server.join",
            "event_date": date,
        }
        for ip, date in (("198.51.100.1", "2026-11-23T10:00:00Z"), ("198.51.100.2", "2026-11-23T11:00:00Z"))
    ]
    assert _post(invoke, demo, list(reversed(joins))).status == 204
    h = secret_headers(demo.server_secret)
    by_name = invoke(
        create_ban.handler, "POST", "/bans", headers=h, body={"user": "Notch", "ip": "", "reason": ""}
    )
    assert by_name.status == 200 and by_name.json()["data"]["ip"] == "198.51.100.2"
    by_uuid = invoke(create_ban.handler, "POST", "/bans", headers=h, body={"user": MC_UUID.replace("-", "")})
    assert by_uuid.json()["data"]["ip"] == "198.51.100.2"
    stranger = invoke(create_ban.handler, "POST", "/bans", headers=h, body={"user": "Stranger", "ip": ""})
    assert stranger.json()["data"]["ip"] == ""
    given = invoke(
        create_ban.handler, "POST", "/bans", headers=h, body={"user": "Notch", "ip": "203.0.113.5"}
    )
    assert given.json()["data"]["ip"] == "203.0.113.5"
