"""Prints the DynamoDB round trips, calls and items read one request of each operation makes
(calls issued in parallel share a round trip), and its wall time in ms on this machine.

Not a test: a figure to watch. Every request goes through the operation's real Lambda handler
(API Gateway v2 event) against moto; a botocore hook counts the DynamoDB calls it makes.
Scenarios live in the modules of scripts/bench/ (named after their interface, e.g.
`storefront.py`, `storefront_baskets.py`, `operator_queue.py`); each module runs on a table of
its own holding the demo store (`fresh_table`), its `setup(ctx)` seeds what it needs and
`scenarios(ctx)` yields (label, handler, method, path, kwargs). moto runs as the local stack
runs it (infra.embedded.as_a_store: a transaction copies only what it touches).

    .venv/bin/python scripts/bench_round_trips.py [--only PREFIX]
"""

from __future__ import annotations

import argparse
import importlib
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

import os  # noqa: E402
import time  # noqa: E402

os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"

import boto3  # noqa: E402

from tests.support.environment import use_test_environment  # noqa: E402

use_test_environment()
TABLE = os.environ["WEBSTORE_TABLE_NAME"]

from infra.embedded import as_a_store  # noqa: E402
from tests.support.demo import demo_catalog_data  # noqa: E402
from tests.support.lambda_events import LambdaContext, api_event  # noqa: E402
from tests.support.round_trips import CallCounter  # noqa: E402


def scenario_modules(only: str | None) -> list[str]:
    names = sorted(p.stem for p in (ROOT / "scripts" / "bench").glob("*.py") if not p.stem.startswith("_"))
    return [n for n in names if not only or n.startswith(only)]


def fresh_table(counter: CallCounter) -> dict[str, Any]:
    """A new, empty table holding only the demo store, for one scenario module: what a scenario
    seeds (the dashboard's 50,000 payments) does not slow the ones after it, and its memory goes
    with the dropped table. The counter's hooks go on the new services' client."""
    from webstore import services
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.db import Table, create_table
    from webstore.operator import auth

    client = boto3.client("dynamodb", region_name="us-east-1")
    if TABLE in client.list_tables()["TableNames"]:
        client.delete_table(TableName=TABLE)
    create_table(client, TABLE)
    services.reset()
    auth.cache.clear()
    counter.hook(services.get_services().table.client)
    table = Table(client, TABLE)
    return {"table": table, "demo": import_catalog(table, parse_catalog(demo_catalog_data()))}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", help="run only the scenario modules whose name starts with this")
    args = parser.parse_args()

    from moto import mock_aws

    with mock_aws(), as_a_store():
        counter = CallCounter()
        counter.count_parallel_reads()
        print(f"{'operation':<46} {'status':>6} {'trips':>5} {'calls':>5} {'items':>6} {'ms':>7}  calls")
        for name in scenario_modules(args.only):
            ctx = fresh_table(counter)
            module = importlib.import_module(f"scripts.bench.{name}")
            module.setup(ctx)
            for label, handler, method, path, kwargs in module.scenarios(ctx):
                counter.reset()
                started = time.perf_counter()
                result = handler(api_event(method, path, **kwargs), LambdaContext())
                took = (time.perf_counter() - started) * 1000
                status, trips, calls = result["statusCode"], counter.rounds, len(counter.calls)
                names = ",".join(counter.calls)
                print(
                    f"{label:<46} {status:>6} {trips:>5} {calls:>5} {counter.items:>6} {took:>7.1f}  {names}",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    sys.exit(main())
