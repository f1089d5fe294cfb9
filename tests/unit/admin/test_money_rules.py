"""The panel's payment rules that need no table: which key ranges a search reads, what it
filters, the merge of several ranges into pages, what a resend sends."""

from __future__ import annotations

from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

import pytest

from webstore import keys
from webstore.admin import payments as panel
from webstore.catalog import CommandTrigger
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict
from webstore.payments.resend import check_resendable, delivery_trigger
from webstore.repo.payment_search import GSI1, GSI2, PaymentSearchRepository, Source
from webstore.repo.payments import PaymentLine, PaymentRecord
from webstore.repo.queue import QueuedCommand

NOW = datetime(2026, 3, 15, 12, tzinfo=UTC)


def payment(payment_id: int = 1, **fields: Any) -> PaymentRecord:
    values: dict[str, Any] = {
        "id": payment_id,
        "transaction_id": f"tbx-{payment_id}-0a0b0c0d",
        "account_id": 1,
        "amount": Decimal(1),
        "currency": "USD",
        "username_id": 1,
        "username": "Steve",
        "lines": [PaymentLine(package_id=10, category_id=1, name="Sword", username_id=1, username="Steve")],
        "idempotency_key": "k",
        "created_at": NOW,
        "updated_at": NOW,
    }
    values.update(fields)
    return PaymentRecord(**values)


def command(command_id: int) -> QueuedCommand:
    return QueuedCommand(
        id=command_id, server_id=1, command="say hi", username_id=1, username="Steve", created_at=NOW
    )


def test_no_criteria_reads_the_accounts_payment_range() -> None:
    sources, where = panel.sources_and_filter(panel.PaymentSearch(), 7, None)
    assert sources == [Source(keys.account_pk(7), keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX))]
    assert where is None


def test_a_status_is_its_partition_and_dates_its_range() -> None:
    search = panel.PaymentSearch(
        status=PaymentStatus.REFUND, date_from=date(2026, 3, 1), date_to=date(2026, 3, 2)
    )
    sources, where = panel.sources_and_filter(search, 7, None)
    assert sources == [Source("PAYSTATUS#7#refund", "20260301T", "20260302T~", index=GSI2)]
    assert where is None
    assert "20260301T" < keys.payment_time_gsi2sk(datetime(2026, 3, 1, tzinfo=UTC), 1) < "20260302T~"
    assert keys.payment_time_gsi2sk(datetime(2026, 3, 2, 23, 59, 59, 999999, tzinfo=UTC), 9) < "20260302T~"


def test_dates_alone_read_every_stored_status() -> None:
    sources, _ = panel.sources_and_filter(panel.PaymentSearch(date_from=date(2026, 3, 1)), 7, None)
    assert [s.pk for s in sources] == ["PAYSTATUS#7#complete", "PAYSTATUS#7#refund", "PAYSTATUS#7#chargeback"]
    assert {(s.low, s.high) for s in sources} == {("20260301T", "~")}


def test_a_player_is_their_gsi1_partition_and_the_rest_filters() -> None:
    search = panel.PaymentSearch(
        player="Steve", package_id=10, status=PaymentStatus.COMPLETE, date_to=date(2026, 3, 2)
    )
    sources, where = panel.sources_and_filter(search, 7, 42)
    assert sources == [
        Source("PLAYERPAY#7#42", keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX), index=GSI1)
    ]
    assert where is not None
    assert where.expression == (
        "contains(#fpackages, :fpackage) AND #fstatus = :fstatus AND #fcreated BETWEEN :ffrom AND :fto"
    )
    assert where.values == {":fpackage": 10, ":fstatus": "complete", ":ffrom": "0", ":fto": "2026-03-02~"}


def test_cursor_kind_follows_the_key_order() -> None:
    assert panel.parse_search({"status": "refund", "cursor": "20260301T120000.000000Z#0000000001"}).cursor
    assert panel.parse_search({"player": "Steve", "status": "refund", "cursor": "PAY#0000000003"}).cursor
    assert panel.parse_search({"package": "10", "cursor": "PAY#0000000003"}).cursor


def test_search_query_round_trips_through_the_parser() -> None:
    fields = {
        "player": "Steve",
        "package": "10",
        "status": "refund",
        "from": "2026-03-01",
        "to": "2026-03-02",
    }
    search = panel.parse_search(fields)
    assert panel.parse_search(search.query("PAY#0000000004")) == panel.PaymentSearch(
        "Steve", None, 10, PaymentStatus.REFUND, date(2026, 3, 1), date(2026, 3, 2), "PAY#0000000004"
    )


class FakeTable:
    """Query over in-memory partitions (sorted descending), honouring Limit; no filters."""

    def __init__(self, partitions: dict[str, list[str]]) -> None:
        self.partitions = partitions
        self.calls = 0

    def query(
        self, pk: str, *, sk_between: tuple[str, str], limit: int, **_: Any
    ) -> tuple[list[dict[str, Any]], Any]:
        self.calls += 1
        low, high = sk_between
        inside = sorted((k for k in self.partitions[pk] if low <= k <= high), reverse=True)
        page = inside[:limit]
        items = [
            {
                **payment(int(k[-10:])).model_dump(),
                "GSI2SK": k,
                "PK": "ACCOUNT#1",
                "SK": keys.payment_sk(int(k[-10:])),
            }
            for k in page
        ]
        last = {"GSI2SK": page[-1]} if len(inside) > limit else None
        return items, last


def test_merged_pages_give_every_item_once_in_order() -> None:
    keys_of = {
        "A": [keys.payment_time_gsi2sk(datetime(2026, 3, 1, h, tzinfo=UTC), h) for h in (1, 4, 5, 9)],
        "B": [keys.payment_time_gsi2sk(datetime(2026, 3, 1, h, tzinfo=UTC), h) for h in (2, 3, 8)],
        "C": [keys.payment_time_gsi2sk(datetime(2026, 3, 1, h, tzinfo=UTC), h) for h in (6, 7)],
    }
    table = FakeTable(keys_of)
    repo = PaymentSearchRepository(table)  # type: ignore[arg-type]
    sources = [Source(pk, "0", "~", index=GSI2) for pk in keys_of]
    seen: list[int] = []
    cursor = None
    while True:
        page = repo.page(sources, limit=2, cursor=cursor)
        assert len(page.payments) <= 2
        seen += [p.id for p in page.payments]
        if page.cursor is None:
            break
        cursor = page.cursor
    assert seen == [9, 8, 7, 6, 5, 4, 3, 2, 1]


def test_planned_commands_say_which_are_queued() -> None:
    paid = payment(plans={"purchase": [[command(1)], [command(2)]]}, chunks_done={"purchase": 1})
    assert [(plan, c.id, queued) for plan, c, queued in panel.planned_commands(paid)] == [
        ("purchase", 1, True),
        ("purchase", 2, False),
    ]


def test_resend_sends_what_delivered_the_payment() -> None:
    assert delivery_trigger(payment(plans={"purchase": []})) is CommandTrigger.PURCHASE
    assert delivery_trigger(payment(plans={"renewal": []})) is CommandTrigger.RENEWAL
    assert delivery_trigger(payment()) is CommandTrigger.PURCHASE
    check_resendable(payment())
    with pytest.raises(Conflict):
        check_resendable(payment(status=PaymentStatus.CHARGEBACK))
