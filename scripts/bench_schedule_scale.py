"""What one processor run costs when 10 renewals are due among 1,000 and among 50,000
subscriptions: DynamoDB round trips and items read must be the same at both sizes (the schedule
is read by Query, "due up to now", never by Scan), and per item what a renewal costs, the figure
the burst arithmetic of docs/subscriptions.md ("Running the clock") starts from.

Ten subscriptions are bought through fulfilment (the real purchase path, sandbox saved card);
the rest are seeded directly with batch writes of the same item shapes the repositories write
(a recurring payment and its schedule item, due later), since buying 50,000 through checkout in
moto takes hours. Then `run_due` runs once, as of just after the ten are due.

moto deep-copies the whole table before each TransactWriteItems (to roll back a cancelled one):
seconds per transaction at 100,000 items, a cost of moto's that no figure here measures. The
script turns that copy off (`no_rollback_copies`); none of its transactions is cancelled.

    .venv/bin/python scripts/bench_schedule_scale.py [--sizes 1000,50000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]
os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"

import boto3  # noqa: E402

from scripts.bench_round_trips import CallCounter  # noqa: E402
from tests.support.environment import use_test_environment  # noqa: E402

use_test_environment()

from tests.support.demo import demo_catalog_data  # noqa: E402

ACCOUNT = 1
DUE = 10
BOUGHT_AT = datetime(2030, 1, 1, 12, tzinfo=UTC)


def buy(services: Any, n: int) -> None:
    """One VIP subscription (package 1, monthly) through fulfilment, paid with the saved card."""
    from webstore.checkout.gateway import SANDBOX_SAVED_CARD
    from webstore.payments.order import Order, OrderLine
    from webstore.payments.recording import fulfil

    services.clock = lambda: BOUGHT_AT + timedelta(minutes=n)
    price = Decimal("4.99")
    fulfil(
        services,
        Order(
            account_id=ACCOUNT,
            idempotency_key=f"bench-scale-{n}",
            username=f"Due{n}",
            lines=[OrderLine(package_id=1, paid_price=price)],
            price_paid=price,
            currency="USD",
            saved_method=SANDBOX_SAVED_CARD,
        ),
    )


def seed_not_due(services: Any, count: int, after: datetime) -> None:
    """`count` more subscriptions like the first one bought, each due a minute apart after `after`."""
    from webstore import keys
    from webstore.db import to_item
    from webstore.recurring import ScheduleItem, ScheduleKind
    from webstore.repo.recurring_payments import RecurringPaymentRepository
    from webstore.repo.schedule import schedule_key

    table = services.table
    (template_item,), _ = table.query(keys.account_pk(ACCOUNT), sk_prefix="RECURRING#", limit=1)
    from webstore.db import from_item
    from webstore.recurring import RecurringPayment

    template = from_item(RecurringPayment, template_item)
    items: list[dict[str, Any]] = []
    for n in range(count):
        reference = f"seed-{n:06d}"
        due = after + timedelta(minutes=n + 1)
        key = schedule_key(ScheduleKind.RENEWAL, ACCOUNT, reference, due)
        changes = {
            "reference": reference,
            "next_payment_at": due,
            "schedule_sk": key.sk,
            "username": f"Seed{n}",
        }
        record = template.model_copy(update=changes)
        items.append(RecurringPaymentRepository.item(record))
        scheduled = to_item(
            ScheduleItem(kind=ScheduleKind.RENEWAL, account_id=ACCOUNT, reference=reference, due_at=due),
            key.pk,
            key.sk,
            "schedule",
        )
        for absent in ("claim", "claimed_until"):
            scheduled.pop(absent, None)
        items.append(scheduled)
        if len(items) >= 500:
            table.batch_write(items)
            items = []
    if items:
        table.batch_write(items)


def no_rollback_copies() -> None:
    import copy
    import types

    from moto.dynamodb import models as dynamodb_models
    from moto.dynamodb.models.table import Table as MotoTable

    def deepcopy(value: Any, memo: dict[int, Any] | None = None) -> Any:
        return value if isinstance(value, MotoTable) else copy.deepcopy(value, memo)

    dynamodb_models.copy = types.SimpleNamespace(deepcopy=deepcopy)  # type: ignore[attr-defined]


def measure(size: int) -> dict[str, Any]:
    from moto import mock_aws

    from webstore import services as services_module
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.db import Table, create_table
    from webstore.subscriptions.processor import backlog, run_due

    with mock_aws():
        services_module.reset()
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, "webstore-test")
        import_catalog(Table(client, "webstore-test"), parse_catalog(demo_catalog_data()))
        services = services_module.get_services()
        started = time.monotonic()
        for n in range(DUE):
            buy(services, n)
        services.clock = lambda: datetime.now(UTC)
        first_due = BOUGHT_AT + timedelta(days=31)  # January has 31 days
        last_due = first_due + timedelta(minutes=DUE - 1)
        seed_not_due(services, size - DUE, after=last_due + timedelta(days=1))
        seeded = time.monotonic() - started

        counter = CallCounter()
        services.table.client.meta.events.register("before-call.dynamodb", counter.before)
        services.table.client.meta.events.register("after-call.dynamodb", counter.after)
        now = last_due + timedelta(seconds=1)

        idle = run_due(services, first_due - timedelta(seconds=1))
        idle_trips, idle_items = len(counter.calls), counter.items
        assert not idle.outcomes, idle.summary()

        counter.reset()
        wall = time.monotonic()
        report = run_due(services, now)
        wall = time.monotonic() - wall
        trips, items, calls = len(counter.calls), counter.items, Counter(counter.calls)

        counter.reset()
        late = backlog(services, now)
        assert late.count == 0, late
        return {
            "size": size,
            "summary": report.summary(),
            "idle_trips": idle_trips,
            "idle_items": idle_items,
            "trips": trips,
            "items": items,
            "calls": dict(sorted(calls.items())),
            "per_item_trips": (trips - idle_trips) / max(len(report.outcomes), 1),
            "per_item_moto_ms": 1000 * wall / max(len(report.outcomes), 1),
            "backlog_trips": len(counter.calls),
            "seed_seconds": seeded,
        }


def main() -> int:
    layout = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=layout)
    parser.add_argument("--sizes", default="1000,50000", help="subscriptions stored (comma-separated)")
    args = parser.parse_args()
    no_rollback_copies()
    print(f"{'subscriptions':>13} {'due':>4} {'trips':>6} {'items':>6} {'idle trips':>10} {'idle items':>10} "
          f"{'trips/item':>10} {'moto ms/item':>12}  calls")  # fmt: skip
    for size in (int(s) for s in args.sizes.split(",")):
        row = measure(size)
        calls = ",".join(f"{name}x{count}" for name, count in row["calls"].items())
        print(
            f"{row['size']:>13} {DUE:>4} {row['trips']:>6} {row['items']:>6} {row['idle_trips']:>10} "
            f"{row['idle_items']:>10} {row['per_item_trips']:>10.1f} "
            f"{row['per_item_moto_ms']:>12.0f}  {calls}",
            flush=True,
        )
        print(f"{'':>13} {row['summary']} (seeded in {row['seed_seconds']:.0f} s; backlog check: "
              f"{row['backlog_trips']} trips)", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
