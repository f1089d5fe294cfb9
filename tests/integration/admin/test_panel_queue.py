"""The panel's command queue (webstore.admin.queue) under moto, with the plugin's real handlers
as the judge: a server's and a player's waiting commands (paged in the database), deleting
through the plugin's use case, resending a payment's delivered commands once per request, and
isolation between stores."""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

import pytest

from functions.operator import delete_commands, get_offline_commands, get_online_commands
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.admin import queue as panel
from webstore.catalog_import import ImportResult
from webstore.errors import Invalid, NotFound
from webstore.repo.audit_log import AuditLog
from webstore.services import get_services

NOW = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)
ACTOR = "staff:support@example.com"
ACCOUNT = 1
SERVER = 1


def plugin_commands(invoke: Invoke, demo: DemoStore, player_id: int) -> list[dict[str, Any]]:
    """What the server's plugin would run now: its offline commands and the player's online ones."""
    headers = secret_headers(demo.server_secret)
    offline = invoke(get_offline_commands.handler, "GET", "/queue/offline-commands", headers=headers)
    online = invoke(
        get_online_commands.handler, "GET", f"/queue/online-commands/{player_id}", headers=headers
    )
    return list(offline.json()["commands"]) + list(online.json()["commands"])


def plugin_runs(invoke: Invoke, demo: DemoStore, ids: list[int]) -> None:
    response = invoke(
        delete_commands.handler,
        "DELETE",
        "/queue",
        body={"ids": ids},
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 204, response.body


def bought(invoke: Invoke, demo: DemoStore, ign: str = "Steve") -> dict[str, Any]:
    return manual_payment(
        invoke,
        demo.server_secret,
        ign=ign,
        packages=[{"id": 10}, {"id": 11, "options": {"world": "survival"}}],
    )


def test_a_servers_queue_and_a_players_queue_list_what_the_plugin_would_run(
    demo: DemoStore, invoke: Invoke
) -> None:
    services = get_services()
    bought(invoke, demo, "Steve")
    bought(invoke, demo, "Alex")
    steve = panel.find_player(services, ACCOUNT, "steve")

    on_server = panel.server_queue(services, ACCOUNT, SERVER)
    mine = panel.player_queue(services, ACCOUNT, steve)

    expected = [c for c in plugin_commands(invoke, demo, steve) if c["player"]["name"] == "Steve"]
    assert {c.id for c in mine.commands if c.server_id == SERVER} == {c["id"] for c in expected}
    assert {c.username for c in mine.commands} == {"Steve"}
    assert {c.username for c in on_server.commands} == {"Steve", "Alex"}
    assert {c.server_id for c in on_server.commands} == {SERVER}
    assert on_server.next_cursor is None and mine.next_cursor is None


def test_pages_follow_the_cursor_to_the_end(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    services = get_services()
    monkeypatch.setattr(panel, "COMMANDS_PER_PAGE", 2)
    for _ in range(3):
        bought(invoke, demo)
    steve = panel.find_player(services, ACCOUNT, "Steve")
    for read in (
        lambda cursor: panel.server_queue(services, ACCOUNT, SERVER, cursor),
        lambda cursor: panel.player_queue(services, ACCOUNT, steve, cursor),
    ):
        seen: list[int] = []
        cursor = None
        for _ in range(20):
            page = read(cursor)
            assert len(page.commands) <= 2
            seen += [c.id for c in page.commands]
            cursor = page.next_cursor
            if cursor is None:
                break
        assert len(seen) == len(set(seen)) >= 5
    with pytest.raises(Invalid):
        panel.server_queue(services, ACCOUNT, SERVER, "STATE")
    with pytest.raises(Invalid):
        panel.player_queue(services, ACCOUNT, steve, "0000000001#x")


def test_delete_removes_commands_as_if_the_plugin_had_run_them(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    bought(invoke, demo)
    steve = panel.find_player(services, ACCOUNT, "Steve")
    waiting = plugin_commands(invoke, demo, steve)
    first = waiting[0]["id"]

    assert panel.delete_commands(services, ACCOUNT, SERVER, [first], actor=ACTOR, now=NOW) == 1
    assert [c["id"] for c in plugin_commands(invoke, demo, steve)] == [c["id"] for c in waiting[1:]]
    panel.delete_commands(services, ACCOUNT, SERVER, [first], actor=ACTOR, now=NOW)  # again: nothing
    deletes = [e.summary for e in AuditLog(demo.table).page(ACCOUNT).entries if e.action == "queue.delete"]
    assert deletes == [f"commands {first} of server {SERVER}: deleted"]  # with the delete; none for nothing
    with pytest.raises(Invalid) as nothing:
        panel.delete_commands(services, ACCOUNT, SERVER, [], actor=ACTOR, now=NOW)
    assert nothing.value.field == "command_ids"


def test_resend_queues_delivered_commands_again_once_per_request(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    payment = bought(invoke, demo)
    steve = panel.find_player(services, ACCOUNT, "Steve")
    delivered = plugin_commands(invoke, demo, steve)
    plugin_runs(invoke, demo, [c["id"] for c in delivered])
    assert plugin_commands(invoke, demo, steve) == []
    request = secrets.token_hex(16)
    chosen = [delivered[0]["id"]]

    queued = panel.resend_commands(
        services, ACCOUNT, payment["txn_id"], chosen, request, actor=ACTOR, now=NOW
    )
    again = panel.resend_commands(services, ACCOUNT, payment["txn_id"], chosen, request, actor=ACTOR, now=NOW)

    [copy] = queued
    assert again == []
    [waiting] = plugin_commands(invoke, demo, steve)
    assert waiting["id"] == copy.id != delivered[0]["id"]
    assert waiting["command"] == delivered[0]["command"]
    with pytest.raises(Invalid) as foreign:
        panel.resend_commands(
            services,
            ACCOUNT,
            payment["txn_id"],
            [copy.id],
            secrets.token_hex(16),
            actor=ACTOR,
            now=NOW,
        )
    assert foreign.value.field == "command_ids"
    with pytest.raises(Invalid) as no_request:
        panel.resend_commands(services, ACCOUNT, payment["txn_id"], chosen, "x", actor=ACTOR, now=NOW)
    assert no_request.value.field == "request_id"


def test_one_store_sees_and_changes_nothing_of_another_stores_queue(
    demo: DemoStore, other_store: ImportResult, invoke: Invoke
) -> None:
    services = get_services()
    payment = bought(invoke, demo)
    steve = panel.find_player(services, ACCOUNT, "Steve")
    waiting = plugin_commands(invoke, demo, steve)
    other = other_store.account_id

    assert panel.server_queue(services, other, SERVER).commands == []
    assert panel.player_queue(services, other, steve).commands == []
    with pytest.raises(NotFound):
        panel.find_player(services, other, "Steve")
    panel.delete_commands(services, other, SERVER, [c["id"] for c in waiting], actor=ACTOR, now=NOW)
    with pytest.raises(NotFound):
        panel.resend_commands(
            services,
            other,
            payment["txn_id"],
            [waiting[0]["id"]],
            secrets.token_hex(16),
            actor=ACTOR,
            now=NOW,
        )
    assert plugin_commands(invoke, demo, steve) == waiting
