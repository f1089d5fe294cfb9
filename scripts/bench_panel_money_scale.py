"""Round trips and items read by the panel's payments, subscriptions and players pages at 1,000
and at 50,000 stored payments: the figures must not grow with the data (nothing scans).

Seeds one account as scripts/bench_operator_scale.py does (payments, coupons, queued commands)
plus refunds and subscriptions, then runs each page's use case against moto and counts the
DynamoDB calls. (The pages' handlers add the staff session's read: docs/panel.md.)

    .venv/bin/python scripts/bench_panel_money_scale.py [--sizes 1000,50000]
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]
os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"

import boto3  # noqa: E402

from scripts.bench_operator_scale import PLAYERS, _backend_writer, seed  # noqa: E402
from scripts.bench_round_trips import CallCounter  # noqa: E402
from tests.support.environment import use_test_environment  # noqa: E402

use_test_environment()

from tests.support.demo import demo_catalog_data  # noqa: E402

REFUNDS = 30  # all player 1's: more than a page of theirs at every size


def seed_more(table: Any, account_id: int, size: int) -> dict[str, Any]:
    """REFUNDS refunded payments (ids after the seeded ones), one subscription per 10 payments,
    the player pointers of player 1, and the payment sequence past them."""
    from webstore import keys
    from webstore.domain.payment_status import PaymentStatus
    from webstore.recurring import RecurringLine, RecurringPayment
    from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
    from webstore.repo.recurring_payments import RecurringPaymentRepository

    now = datetime(2026, 1, 2, tzinfo=UTC)
    items: list[dict[str, Any]] = []
    refund_txn = ""
    for payment_id in range(size + 1, size + REFUNDS + 1):
        record = PaymentRecord(
            id=payment_id,
            transaction_id=keys.new_transaction_id(payment_id),
            account_id=account_id,
            status=PaymentStatus.REFUND,
            amount=Decimal("4.99"),
            currency="USD",
            username_id=1,
            username="Seed0",
            lines=[PaymentLine(package_id=10, category_id=1, name="Sword", username_id=1, username="Seed0")],
            idempotency_key=f"seed-{payment_id}",
            created_at=now + timedelta(minutes=payment_id - size),
            updated_at=now,
        )
        refund_txn = refund_txn or record.transaction_id
        items.append(PaymentRepository.item(record))
    for payment_id in range(1, size + 1, 10):
        line = RecurringLine(
            package_id=1, category_id=1, name="VIP", price=Decimal("4.99"), username_id=1, username="Seed0"
        )
        recurring = RecurringPayment(
            reference=f"tbx-{payment_id}-0a0b0c0d",
            account_id=account_id,
            username_id=payment_id % PLAYERS + 1,
            username="Seed",
            lines=[line],
            amount=Decimal("4.99"),
            currency="USD",
            period_length=1,
            period_unit="month",
            created_at=now,
            updated_at=now,
            next_payment_at=now + timedelta(days=30),
            last_payment_id=payment_id,
            initial_payment_id=payment_id,
        )
        items.append(RecurringPaymentRepository.item(recurring))
    pk = keys.account_pk(account_id)
    player = {"entity": "player_pointer", "username_id": 1}
    items.append({**keys.key(pk, keys.player_name_sk("Seed0")), **player})
    items.append(
        {
            **keys.key(pk, keys.player_sk(1)),
            "entity": "player",
            "username_id": 1,
            "username": "Seed0",
            "GSI1PK": keys.payments_of_player(account_id, 1),
            "GSI1SK": keys.PLAYER_GSI1SK,
        }
    )
    _backend_writer(table)(items)
    table.update(keys.key(pk, keys.SEQUENCES_ITEM), "SET payment = :p", values={":p": size + REFUNDS})
    return {"refund_txn": refund_txn}


def page_reads(svc: Any, seeded: dict[str, Any]) -> list[tuple[str, Callable[[], Any]]]:
    """What each page reads, as its use case (the handler adds the session's read)."""
    from webstore.admin import payments, players, subscriptions

    def search(**fields: str) -> Callable[[], Any]:
        return lambda: payments.search_payments(svc, 1, payments.parse_search(fields))

    cursor = payments.search_payments(svc, 1, payments.parse_search({})).next_cursor or ""
    return [
        ("/payments", search()),
        ("/payments (next page)", search(cursor=cursor)),
        ("/payments?transaction", search(transaction=seeded["txn"])),
        ("/payments?player", search(player="Seed0")),
        ("/payments?status=refund", search(status="refund")),
        ("/payments?from&to (3 statuses)", search(**{"from": "2026-01-01", "to": "2026-01-02"})),
        ("/payments?package=10 (filter)", search(package="10")),
        ("/payments/{txn}", lambda: payments.payment_detail(svc, 1, seeded["txn"])),
        ("/subscriptions", lambda: subscriptions.subscriptions_page(svc, 1)),
        ("/subscriptions/{reference}", lambda: subscriptions.subscription(svc, 1, "tbx-1-0a0b0c0d")),
        ("/players/{name}", lambda: players.player_history(svc, 1, "Seed0")),
        ("/bans", lambda: players.bans_page(svc, 1)),
    ]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,50000")
    args = parser.parse_args()

    from moto import mock_aws

    from webstore import services
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.db import Table, create_table

    results: dict[str, dict[int, tuple[int, int, int]]] = {}
    sizes = [int(s) for s in args.sizes.split(",")]
    for size in sizes:
        print(f"== {size} stored payments", flush=True)
        with mock_aws():
            services.reset()
            client = boto3.client("dynamodb", region_name="us-east-1")
            create_table(client, "webstore-test")
            table = Table(client, "webstore-test")
            import_catalog(table, parse_catalog(demo_catalog_data()))
            seeded = {**seed(table, 1, size), **seed_more(table, 1, size)}
            counter = CallCounter()
            hooked = services.get_services().table.client
            hooked.meta.events.register("before-call.dynamodb", counter.before)
            hooked.meta.events.register("after-call.dynamodb", counter.after)
            counter.count_parallel_reads()
            scenarios = page_reads(services.get_services(), seeded)
            for label, run in scenarios:
                counter.reset()
                run()
                results.setdefault(label, {})[size] = (counter.rounds, len(counter.calls), counter.items)
        services.reset()

    print()
    print(f"{'page':<36}" + "".join(f" {f'@{s}: trips calls items':>26}" for s in sizes))
    for label, by_size in results.items():
        cells = "".join(
            f" {f'{by_size[s][0]} {by_size[s][1]:>5} {by_size[s][2]:>6}':>26}" for s in sizes if s in by_size
        )
        print(f"{label:<36}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
