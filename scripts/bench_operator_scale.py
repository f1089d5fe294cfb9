"""Round trips and items read per operator request at 1,000 and at 50,000 stored payments,
coupons and queued commands: the figures must not grow with the data (nothing scans).

Seeds one account directly with batch writes (the same item shapes the use cases write), then
sends each request through its real Lambda handler against moto and counts DynamoDB calls.

    .venv/bin/python scripts/bench_operator_scale.py [--sizes 1000,50000]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]
os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"
# Moto is slow on big partitions; keep the secret cached so each figure is the operation's own.
os.environ.setdefault("WEBSTORE_SECRET_CACHE_SECONDS", "3600")

import boto3  # noqa: E402

from scripts.bench_round_trips import CallCounter  # noqa: E402
from tests.support.environment import use_test_environment  # noqa: E402

use_test_environment()

from tests.support.demo import demo_catalog_data  # noqa: E402
from tests.support.lambda_events import LambdaContext, api_event  # noqa: E402

PLAYERS = 500  # online commands are spread over this many due players


def seed(table: Any, account_id: int, size: int) -> dict[str, Any]:
    """`size` payments, `size` coupons and `size` queued commands (half offline, half online)."""
    from webstore import keys
    from webstore.catalog import Coupon, Discount, Effective
    from webstore.db import to_item
    from webstore.repo.account import AccountRepository
    from webstore.repo.payments import PaymentLine, PaymentRecord, PaymentRepository
    from webstore.repo.queue import QueuedCommand

    now = datetime(2026, 1, 1, tzinfo=UTC)
    pk = keys.account_pk(account_id)
    items: list[dict[str, Any]] = []
    first_txn = ""
    for payment_id in range(1, size + 1):
        record = PaymentRecord(
            id=payment_id,
            transaction_id=keys.new_transaction_id(payment_id),
            account_id=account_id,
            amount=Decimal("4.99"),
            currency="USD",
            username_id=payment_id % PLAYERS + 1,
            username=f"Seed{payment_id % PLAYERS}",
            lines=[PaymentLine(package_id=1, category_id=1, name="VIP", username_id=1, username="Seed")],
            idempotency_key=f"seed-{payment_id}",
            created_at=now,
            updated_at=now,
        )
        first_txn = first_txn or record.transaction_id
        items.append(PaymentRepository.item(record))
    for coupon_id in range(100, 100 + size):
        coupon = Coupon(
            id=coupon_id,
            code=f"SEED{coupon_id}",
            effective=Effective(type="cart"),
            discount=Discount(percentage=Decimal(5)),
            created_at=now,
        )
        items.append(to_item(coupon, pk, keys.coupon_sk(coupon.id), "coupon"))
        items.append(to_item(coupon, pk, keys.coupon_code_sk(coupon.code), "coupon_code"))
    queue_pk = keys.queue_pk(account_id, 1)
    pending: dict[int, int] = {}
    offline = 0
    for command_id in range(1_000_000, 1_000_000 + size):
        online = command_id % 2 == 0
        player = command_id % PLAYERS + 1
        command = QueuedCommand(
            id=command_id,
            server_id=1,
            command="say {username}",
            require_online=online,
            username_id=player,
            username=f"Seed{player}",
            created_at=now,
        )
        items.append(to_item(command, queue_pk, command.location, "command"))
        items.append(
            {
                "PK": queue_pk,
                "SK": keys.command_pointer_sk(command_id),
                "entity": "command_pointer",
                "location": command.location,
                "counter": command.counter_sk,
            }
        )
        if online:
            pending[player] = pending.get(player, 0) + 1
        else:
            offline += 1
    for player, count in pending.items():
        items.append(
            {
                "PK": queue_pk,
                "SK": keys.due_sk(player),
                "entity": "due_player",
                "pending": count,
                "username_id": player,
                "username": f"Seed{player}",
                "uuid": None,
            }
        )
    items.append(
        {"PK": queue_pk, "SK": keys.QUEUE_STATE, "entity": "queue_state", "offline_pending": offline}
    )
    started = time.monotonic()
    write = _backend_writer(table)
    for start in range(0, len(items), 10_000):
        write(items[start : start + 10_000])
        print(f"  seeded {min(start + 10_000, len(items)):>7}/{len(items)} items", flush=True)
    # What the payment sequence and coupon counter hold after these writes.
    table.update(
        keys.key(pk, keys.SEQUENCES_ITEM),
        "SET payment = :p, coupon_count = :c",
        values={":p": size, ":c": size + AccountRepository(table).coupon_count(account_id)},
    )
    print(f"  seeding took {time.monotonic() - started:.0f}s", flush=True)
    return {"txn": first_txn, "player": 1, "delete_ids": [1_000_000, 1_000_001, 1_000_002]}


def _backend_writer(table: Any) -> Any:
    """Seed through moto's backend (the same items a BatchWriteItem would store, without the
    HTTP round trip per 25 items, which takes ~30 minutes for 250,000 items)."""
    from moto.core import DEFAULT_ACCOUNT_ID
    from moto.dynamodb.models import dynamodb_backends

    from webstore.db import serialize

    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID]["us-east-1"]

    def write(items: list[dict[str, Any]]) -> None:
        for item in items:
            backend.put_item(table.name, serialize(item))

    return write


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="1000,50000")
    args = parser.parse_args()

    from moto import mock_aws

    from functions.operator import (
        delete_commands,
        get_coupon,
        get_coupons,
        get_due_players,
        get_offline_commands,
        get_online_commands,
        get_payment,
        get_payments,
    )
    from webstore import services
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.db import Table, create_table
    from webstore.operator import auth

    results: dict[str, dict[int, tuple[int, int, int]]] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        print(f"== {size} stored payments, coupons and commands", flush=True)
        with mock_aws():
            services.reset()
            auth.cache.clear()
            client = boto3.client("dynamodb", region_name="us-east-1")
            create_table(client, "webstore-test")
            table = Table(client, "webstore-test")
            demo = import_catalog(table, parse_catalog(demo_catalog_data()))
            seeded = seed(table, 1, size)
            counter = CallCounter()
            hooked = services.get_services().table.client
            hooked.meta.events.register("before-call.dynamodb", counter.before)
            hooked.meta.events.register("after-call.dynamodb", counter.after)
            headers = {"X-Tebex-Secret": demo.server_secrets[1]}
            last_page = str((size + 24) // 25)
            scenarios: list[tuple[str, Any, str, str, dict[str, Any]]] = [
                ("GET /payments (limit 100)", get_payments.handler, "GET", "/payments", {}),
                (
                    "GET /payments?paged=1&page=1",
                    get_payments.handler,
                    "GET",
                    "/payments",
                    {"query": {"paged": "1", "page": "1"}},
                ),
                (
                    "GET /payments?paged=1&page=last",
                    get_payments.handler,
                    "GET",
                    "/payments",
                    {"query": {"paged": "1", "page": last_page}},
                ),
                ("GET /payments/{txn}", get_payment.handler, "GET", f"/payments/{seeded['txn']}", {}),
                ("GET /coupons", get_coupons.handler, "GET", "/coupons", {}),
                (
                    "GET /coupons (next link)",
                    get_coupons.handler,
                    "GET",
                    "/coupons",
                    {"query": {"page": "2", "after": "125"}},
                ),
                ("GET /coupons/{id}", get_coupon.handler, "GET", "/coupons/150", {}),
                ("GET /queue", get_due_players.handler, "GET", "/queue", {}),
                ("GET /queue (more: next page)", get_due_players.handler, "GET", "/queue", {}),
                (
                    "GET /queue/offline-commands",
                    get_offline_commands.handler,
                    "GET",
                    "/queue/offline-commands",
                    {},
                ),
                (
                    "GET /queue/online-commands/{id}",
                    get_online_commands.handler,
                    "GET",
                    f"/queue/online-commands/{seeded['player']}",
                    {},
                ),
                (
                    "DELETE /queue (3 ids)",
                    delete_commands.handler,
                    "DELETE",
                    "/queue",
                    {"body": {"ids": seeded["delete_ids"]}},
                ),
            ]
            # Warm the secret cache so each figure is the operation's own.
            get_payment.handler(api_event("GET", "/payments/x", headers=headers), LambdaContext())
            for label, handler, method, path, kwargs in scenarios:
                counter.reset()
                result = handler(api_event(method, path, headers=headers, **kwargs), LambdaContext())
                results.setdefault(label, {})[size] = (
                    result["statusCode"],
                    len(counter.calls),
                    counter.items,
                )
        services.reset()

    sizes = [int(s) for s in args.sizes.split(",")]
    print()
    print(f"{'request':<36}" + "".join(f" {f'@{s}: status trips items':>28}" for s in sizes))
    for label, by_size in results.items():
        cells = "".join(
            f" {f'{by_size[s][0]} {by_size[s][1]:>5} {by_size[s][2]:>6}':>28}" for s in sizes if s in by_size
        )
        print(f"{label:<36}{cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
