"""Payments and subscriptions stored before GSI2 existed: found by status, date and package,
and listed, once the backfill gives them their keys (and a status change gives a payment its
time key by itself)."""

from __future__ import annotations

from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from webstore import keys
from webstore.admin import payments as panel
from webstore.admin import subscriptions as panel_subscriptions
from webstore.payments import changes
from webstore.repo.search_keys import SearchKeyBackfill
from webstore.services import get_services


def strip_keys(demo: DemoStore, sk: str) -> None:
    """The item as the versions before GSI2 wrote it."""
    demo.table.update(keys.key(keys.account_pk(1), sk), "REMOVE GSI2PK, GSI2SK, package_ids")


def found(**fields: str) -> list[int]:
    return [p.id for p in panel.search_payments(get_services(), 1, panel.parse_search(fields)).payments]


def test_backfill_gives_old_items_their_search_keys_once(demo: DemoStore) -> None:
    use_clock()
    sword, vip, other = pay("a"), pay("b", "Alex", 1, "4.99"), pay("c", "Cid")
    for payment in (sword, vip, other):
        strip_keys(demo, keys.payment_sk(payment.id))
    strip_keys(demo, keys.recurring_payment_sk(vip.transaction_id))
    assert found(status="complete") == [] and found(package="10") == []
    assert panel_subscriptions.subscriptions_page(get_services(), 1).subscriptions == []
    # a status change of an old payment puts it in its status's partition by itself
    changes.change_payment(get_services(), 1, other.transaction_id, "chargeback", None)
    assert found(status="chargeback") == [other.id]

    backfill = SearchKeyBackfill(demo.table)
    assert backfill.run(1) == (3, 1)
    assert found(status="complete") == [vip.id, sword.id]
    assert found(status="chargeback") == [other.id]
    assert found(package="10") == [other.id, sword.id]
    assert found(**{"from": "2026-03-15", "to": "2026-03-15"}) == [other.id, vip.id, sword.id]
    assert [r.reference for r in panel_subscriptions.subscriptions_page(get_services(), 1).subscriptions] == [
        vip.transaction_id
    ]
    assert backfill.run(1) == (0, 0)
