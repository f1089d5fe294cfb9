"""The audit log (webstore.repo.audit_log) against moto: newest first, paged in the database,
written beside a change in its transaction, and one entry per import."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.demo import DemoStore, demo_catalog_data
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.db import Table, Transaction
from webstore.errors import Conflict, Invalid
from webstore.repo.audit_log import AuditLog

A, B = 1, 2
T0 = datetime(2026, 11, 23, 12, 0, tzinfo=UTC)


def test_the_list_is_newest_first_and_pages_with_a_cursor(table: Table) -> None:
    log = AuditLog(table)
    for n in range(5):
        at = T0 + timedelta(minutes=n)
        log.record(A, "owner@example.com", "catalog.package.update", f"~1 package ({n})", at)
    log.record(B, "other@example.com", "catalog.package.update", "elsewhere", T0)

    first = log.page(A, limit=2)
    assert [e.summary for e in first.entries] == ["~1 package (4)", "~1 package (3)"]
    assert first.next_cursor is not None
    second = log.page(A, first.next_cursor, limit=2)
    assert [e.summary for e in second.entries] == ["~1 package (2)", "~1 package (1)"]
    last = log.page(A, second.next_cursor, limit=2)
    assert [e.summary for e in last.entries] == ["~1 package (0)"]
    assert last.next_cursor is None
    exact = log.page(B, limit=1)  # exactly one page: no cursor to an empty page
    assert [e.actor for e in exact.entries] == ["other@example.com"] and exact.next_cursor is None


def test_two_entries_at_the_same_moment_are_both_kept(table: Table) -> None:
    log = AuditLog(table)
    log.record(A, "a@example.com", "x", "one", T0)
    log.record(A, "b@example.com", "x", "two", T0)
    assert sorted(e.summary for e in log.page(A).entries) == ["one", "two"]


def test_a_cursor_it_did_not_give_is_refused_naming_the_field(table: Table) -> None:
    with pytest.raises(Invalid) as refused:
        AuditLog(table).page(A, "PAY#0000000001")
    assert refused.value.field == "cursor"


def test_an_entry_added_to_a_transaction_is_written_only_with_the_change(table: Table) -> None:
    log = AuditLog(table)
    tx = Transaction(table)
    log.add_to(tx, A, "owner@example.com", "catalog.page.update", "~1 page", T0)
    tx.check({"PK": "NOPE", "SK": "NOPE"}, "attribute_exists(PK)", fails=Conflict("gone"))
    with pytest.raises(Conflict):
        tx.commit()
    assert log.page(A).entries == []
    tx = Transaction(table)
    log.add_to(tx, A, "owner@example.com", "catalog.page.update", "~1 page", T0)
    tx.commit()
    assert [(e.actor, e.summary, e.at) for e in log.page(A).entries] == [("owner@example.com", "~1 page", T0)]


def test_long_summaries_are_cut(table: Table) -> None:
    entry = AuditLog(table).record(A, "import", "catalog.import", "x" * 5000, T0)
    assert len(entry.summary) == 2000 and entry.summary.endswith("…")


def test_every_import_is_recorded_with_its_change_summary(demo: DemoStore) -> None:
    data = demo_catalog_data()
    data["packages"] = data["packages"][1:]
    import_catalog(demo.table, parse_catalog(data), now=datetime.now(UTC) + timedelta(minutes=1))
    entries = AuditLog(demo.table).page(demo.result.account_id).entries
    assert [(e.actor, e.action, e.summary) for e in entries] == [
        ("import", "catalog.import", "-1 package"),
        ("import", "catalog.import", entries[1].summary),
    ]
    assert entries[1].summary.startswith("+")  # the demo store's first import added everything
