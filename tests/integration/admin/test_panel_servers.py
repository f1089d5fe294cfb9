"""The panel's servers (webstore.admin.servers) under moto, with the operator interface's real
handler as the judge of secrets: create, rename, rotate (the old secret refused at once in this
process, the new one accepted), the catalog round trip, bad input, and isolation between stores."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from functions.operator import get_information
from tests.integration.operator.support import secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.admin import servers as panel
from webstore.catalog_export import export_catalog
from webstore.catalog_import import ImportResult, import_catalog
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.audit_log import Audit, AuditLog
from webstore.repo.servers import ServerRepository
from webstore.services import get_services

NOW = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)
ACTOR = "staff:owner@example.com"
ACCOUNT = 1


def server_of(invoke: Invoke, secret: str) -> tuple[int, dict[str, object]]:
    response = invoke(get_information.handler, "GET", "/information", headers=secret_headers(secret))
    return response.status, (response.json() if response.status == 200 else {})


def test_a_created_server_gets_the_next_id_and_a_secret_the_operator_interface_accepts(
    demo: DemoStore, invoke: Invoke
) -> None:
    services = get_services()
    before = panel.servers(services, ACCOUNT)
    issued = panel.create_server(services, ACCOUNT, "  Skyblock  ", actor=ACTOR, now=NOW)

    assert issued.server_id == max(s.id for s in before) + 1
    status, body = server_of(invoke, issued.secret)
    assert status == 200
    assert body["server"] == {"id": issued.server_id, "name": "Skyblock"}
    shown = panel.server(services, ACCOUNT, issued.server_id)
    assert shown == panel.ServerView(issued.server_id, "Skyblock", 60)
    assert issued.secret not in repr(panel.servers(services, ACCOUNT))
    [entry, *_] = AuditLog(demo.table).page(ACCOUNT).entries
    assert (entry.actor, entry.action) == (ACTOR, "server.create") and issued.secret not in entry.summary


def test_rename_changes_what_the_plugin_is_told(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    old_name = panel.server(services, ACCOUNT, 1).name
    panel.rename_server(services, ACCOUNT, 1, "Lobby <b>1</b>", actor=ACTOR, now=NOW)
    assert server_of(invoke, demo.server_secret)[1]["server"] == {"id": 1, "name": "Lobby <b>1</b>"}
    [entry, *_] = AuditLog(demo.table).page(ACCOUNT).entries
    assert (entry.action, entry.summary) == (
        "server.rename",
        f'server 1: name: "{old_name}" → "Lobby <b>1</b>"',
    )


def test_saving_the_same_name_writes_nothing(demo: DemoStore) -> None:
    services = get_services()
    before = AuditLog(demo.table).page(ACCOUNT).entries
    panel.rename_server(services, ACCOUNT, 1, panel.server(services, ACCOUNT, 1).name, actor=ACTOR, now=NOW)
    assert AuditLog(demo.table).page(ACCOUNT).entries == before


def test_a_rename_from_a_stale_read_is_refused_not_written_over(demo: DemoStore) -> None:
    """The repository renames on condition that the name is still the one the audit entry names
    as old: a rename that lands in between makes the later one a Conflict, and the log keeps
    one true entry."""
    services = get_services()
    stale = panel._server(services, ACCOUNT, 1)
    panel.rename_server(services, ACCOUNT, 1, "First", actor=ACTOR, now=NOW)
    audit = Audit(ACTOR, "server.rename", "stale", NOW)
    with pytest.raises(Conflict):
        ServerRepository(demo.table).rename(ACCOUNT, stale, "Second", audit)
    assert panel.server(services, ACCOUNT, 1).name == "First"
    assert [e.summary for e in AuditLog(demo.table).page(ACCOUNT).entries].count("stale") == 0


def test_rotation_refuses_the_old_secret_at_once_and_accepts_the_new(demo: DemoStore, invoke: Invoke) -> None:
    services = get_services()
    old = demo.server_secret
    assert server_of(invoke, old)[0] == 200  # verified, so cached by this process

    issued = panel.rotate_secret(services, ACCOUNT, 1, actor=ACTOR, now=NOW)

    [entry, *_] = AuditLog(demo.table).page(ACCOUNT).entries
    assert entry.action == "server.rotate_secret" and entry.summary.endswith(": secret: changed")
    assert issued.secret not in entry.summary

    assert server_of(invoke, old)[0] == 403
    status, body = server_of(invoke, issued.secret)
    assert status == 200 and body["server"]["id"] == 1  # type: ignore[index]


def test_a_panel_server_and_its_rotated_secret_survive_export_then_import(
    demo: DemoStore, invoke: Invoke
) -> None:
    services = get_services()
    created = panel.create_server(services, ACCOUNT, "Survival", actor=ACTOR, now=NOW)
    rotated = panel.rotate_secret(services, ACCOUNT, 1, actor=ACTOR, now=NOW)

    result = import_catalog(demo.table, export_catalog(demo.table, ACCOUNT), now=NOW)

    assert created.server_id in result.server_secrets
    assert set(result.server_secrets.values()) == {None}  # every secret kept, none issued
    assert server_of(invoke, created.secret)[0] == 200
    assert server_of(invoke, rotated.secret)[0] == 200
    again = panel.create_server(services, ACCOUNT, "Creative", actor=ACTOR, now=NOW)
    assert again.server_id == created.server_id + 1


def test_importing_a_file_without_the_panel_server_keeps_it_and_force_removes_it(
    demo: DemoStore, invoke: Invoke
) -> None:
    """A server made in the panel is in no file yet: an import leaves it (and its secret) alone;
    `--force` makes the store equal to the file, removing it and its secret."""
    services = get_services()
    older_file = export_catalog(demo.table, ACCOUNT)
    created = panel.create_server(services, ACCOUNT, "Survival", actor=ACTOR, now=NOW)

    import_catalog(demo.table, older_file, now=NOW)
    assert panel.server(services, ACCOUNT, created.server_id).name == "Survival"
    assert server_of(invoke, created.secret)[0] == 200

    import_catalog(demo.table, older_file, now=NOW, force=True)
    with pytest.raises(NotFound):
        panel.server(services, ACCOUNT, created.server_id)
    assert server_of(invoke, created.secret)[0] == 403


@pytest.mark.parametrize("name", ["", "   ", "x" * 201])
def test_a_bad_name_is_refused_naming_the_field_and_nothing_is_written(demo: DemoStore, name: str) -> None:
    services = get_services()
    before = panel.servers(services, ACCOUNT)
    with pytest.raises(Invalid) as refused:
        panel.create_server(services, ACCOUNT, name, actor=ACTOR, now=NOW)
    assert refused.value.field == "name"
    with pytest.raises(Invalid):
        panel.rename_server(services, ACCOUNT, 1, name, actor=ACTOR, now=NOW)
    assert panel.servers(services, ACCOUNT) == before


def test_one_store_cannot_see_rename_or_rotate_another_stores_server(
    demo: DemoStore, other_store: ImportResult, invoke: Invoke
) -> None:
    services = get_services()
    other_account = other_store.account_id
    created = panel.create_server(services, ACCOUNT, "Only ours", actor=ACTOR, now=NOW)
    assert created.server_id not in {s.id for s in panel.servers(services, other_account)}
    for attempt in (
        lambda: panel.server(services, other_account, created.server_id),
        lambda: panel.rename_server(services, other_account, created.server_id, "x", actor=ACTOR, now=NOW),
        lambda: panel.rotate_secret(services, other_account, created.server_id, actor=ACTOR, now=NOW),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert server_of(invoke, created.secret)[1]["server"] == {"id": created.server_id, "name": "Only ours"}
