"""The panel's payment search under moto: each way, its pages and cursors, and what it reads."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from webstore.admin import payments as panel
from webstore.catalog_import import ImportResult
from webstore.errors import Invalid
from webstore.payments import changes
from webstore.repo.payments import PaymentRecord
from webstore.services import get_services


def search(account_id: int = 1, **fields: str) -> panel.SearchResult:
    return panel.search_payments(get_services(), account_id, panel.parse_search(fields))


def all_pages(**fields: str) -> list[list[PaymentRecord]]:
    pages = []
    cursor = ""
    while True:
        result = search(**fields, cursor=cursor) if cursor else search(**fields)
        pages.append(result.payments)
        if result.next_cursor is None:
            return pages
        cursor = result.next_cursor


def ids(payments: list[PaymentRecord]) -> list[int]:
    return [p.id for p in payments]


@pytest.fixture
def thirty(demo: DemoStore) -> list[PaymentRecord]:
    """30 payments, one an hour from 2026-03-15 12:00 UTC: Steve buys package 10, Alex 20 (every
    third), two refunded, one charged back."""
    clock = use_clock()
    made = []
    for n in range(30):
        made.append(pay(f"p{n}", "Alex" if n % 3 == 0 else "Steve", 20 if n % 3 == 0 else 10))
        clock.advance(3600)
    services = get_services()
    for n in (4, 7):
        changes.change_payment(services, 1, made[n].transaction_id, "refund", None)
    changes.change_payment(services, 1, made[10].transaction_id, "chargeback", None)
    return made


def test_no_criteria_pages_every_payment_newest_first(thirty: list[PaymentRecord]) -> None:
    pages = all_pages()
    assert [len(p) for p in pages] == [25, 5]
    assert [i for page in pages for i in ids(page)] == list(range(30, 0, -1))


def test_by_transaction_is_one_payment_or_a_notice(thirty: list[PaymentRecord]) -> None:
    found = search(transaction=thirty[3].transaction_id)
    assert ids(found.payments) == [thirty[3].id] and found.next_cursor is None
    wrong = thirty[3].transaction_id[:-1] + ("0" if thirty[3].transaction_id[-1] != "0" else "1")
    missing = search(transaction=wrong)
    assert missing.payments == [] and "No payment" in missing.notice


def test_by_player_name_or_uuid(thirty: list[PaymentRecord]) -> None:
    alex = [p for p in thirty if p.username == "Alex"]
    assert ids(search(player="alex").payments) == ids(alex[::-1])
    assert ids(search(player=alex[0].uuid or "").payments) == ids(alex[::-1])
    assert search(player="Nobody").notice.startswith("No player Nobody")


def test_by_player_pages_with_a_cursor(thirty: list[PaymentRecord], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(panel, "PER_PAGE", 7)
    steve = [p for p in reversed(thirty) if p.username == "Steve"]
    pages = all_pages(player="Steve")
    assert [len(p) for p in pages] == [7, 7, 6]
    assert [i for page in pages for i in ids(page)] == ids(steve)


def test_by_status(thirty: list[PaymentRecord]) -> None:
    assert ids(search(status="refund").payments) == [thirty[7].id, thirty[4].id]
    assert ids(search(status="chargeback").payments) == [thirty[10].id]
    complete = [p for page in all_pages(status="complete") for p in page]
    assert len(complete) == 27 and all(p.status == "complete" for p in complete)


def test_by_date_range_merges_the_statuses(
    thirty: list[PaymentRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panel, "PER_PAGE", 4)
    # 2026-03-16: payments 13..30 (12:00 + 12 h onwards), newest first, refunds and all
    day = [p for p in thirty if p.created_at.date().isoformat() == "2026-03-16"]
    pages = all_pages(**{"from": "2026-03-16", "to": "2026-03-16"})
    assert [i for page in pages for i in ids(page)] == ids(day[::-1])
    assert all(len(page) <= 4 for page in pages)
    first_day = [p for page in all_pages(to="2026-03-15") for p in page]
    assert ids(first_day) == list(range(12, 0, -1))  # 12:00 .. 23:00, including refunds 5 and 8


def test_status_within_dates(thirty: list[PaymentRecord]) -> None:
    found = search(status="refund", **{"from": "2026-03-15", "to": "2026-03-15"})
    assert ids(found.payments) == [thirty[7].id, thirty[4].id]
    assert search(status="chargeback", **{"from": "2026-03-17"}).payments == []


def test_by_package_filters_a_bounded_window(
    thirty: list[PaymentRecord], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(panel, "SEARCH_WINDOW", 8)
    pages = all_pages(package="20")
    found = [p for page in pages for p in page]
    assert ids(found) == [p.id for p in reversed(thirty) if p.lines[0].package_id == 20]
    assert len(pages) >= 4  # 30 payments read 8 (+1) at a time
    assert ids(search(package="20", player="Steve").payments) == []
    assert ids(search(package="10", status="refund").payments) == [thirty[7].id, thirty[4].id]


def test_player_with_status_and_dates(thirty: list[PaymentRecord]) -> None:
    assert ids(search(player="Steve", status="refund").payments) == [thirty[7].id, thirty[4].id]
    steve_day2 = [
        p.id
        for p in reversed(thirty)
        if p.username == "Steve" and p.created_at.date().isoformat() == "2026-03-16"
    ]
    assert ids(search(player="Steve", **{"from": "2026-03-16"}).payments) == steve_day2


def test_a_status_change_moves_the_payment_between_status_partitions(demo: DemoStore) -> None:
    use_clock()
    payment = pay("one")
    assert ids(search(status="complete").payments) == [payment.id]
    changes.change_payment(get_services(), 1, payment.transaction_id, "chargeback", None)
    assert search(status="complete").payments == []
    changes.change_payment(get_services(), 1, payment.transaction_id, "complete", None)
    assert ids(search(status="complete").payments) == [payment.id]


def test_another_stores_payments_are_never_found(
    thirty: list[PaymentRecord], other_store: ImportResult
) -> None:
    use_clock(thirty[-1].created_at + timedelta(hours=1))
    theirs = pay("theirs", account_id=2)
    assert search(account_id=2, transaction=thirty[0].transaction_id).payments == []
    assert ids(search(account_id=2).payments) == [theirs.id]
    assert search(account_id=2, status="refund").payments == []
    assert search(account_id=2, player="Alex").payments == []
    assert ids(search(account_id=1, **{"from": "2026-03-14"}).payments)[0] == thirty[-1].id


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"transaction": "12"}, "transaction"),
        ({"package": "x"}, "package"),
        ({"package": "0"}, "package"),
        ({"status": "declined"}, "status"),
        ({"from": "2026-13-01"}, "from"),
        ({"from": "yesterday"}, "from"),
        ({"from": "2026-03-02", "to": "2026-03-01"}, "to"),
        ({"player": "x" * 65}, "player"),
        ({"cursor": "PAY#1"}, "cursor"),
        ({"status": "refund", "cursor": "PAY#0000000001"}, "cursor"),
    ],
)
def test_bad_criteria_name_their_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as raised:
        panel.parse_search(fields)
    assert raised.value.field == field
