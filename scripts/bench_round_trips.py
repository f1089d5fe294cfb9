"""Prints the DynamoDB round trips (and items read) one request of each operation makes.

Not a test: a figure to watch. Every request goes through the operation's real Lambda handler
(API Gateway v2 event) against moto; a botocore hook counts the DynamoDB calls it makes.
Scenarios live in the modules of scripts/bench/ (named after their interface, e.g.
`storefront.py`, `storefront_baskets.py`, `operator_queue.py`); each module's `setup(ctx)` seeds
what it needs and `scenarios(ctx)` yields (label, handler, method, path, kwargs).

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

os.environ["POWERTOOLS_METRICS_DISABLED"] = "true"

import boto3  # noqa: E402

from tests.support.environment import use_test_environment  # noqa: E402

use_test_environment()

from tests.support.demo import demo_catalog_data  # noqa: E402
from tests.support.lambda_events import LambdaContext, api_event  # noqa: E402


def scenario_modules(only: str | None) -> list[str]:
    names = sorted(p.stem for p in (ROOT / "scripts" / "bench").glob("*.py") if not p.stem.startswith("_"))
    return [n for n in names if not only or n.startswith(only)]


class CallCounter:
    """Counts DynamoDB API calls and the items they return."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        self.items = 0

    def before(self, event_name: str, **_: Any) -> None:
        self.calls.append(event_name.rsplit(".", 1)[-1])

    def after(self, parsed: dict[str, Any], **_: Any) -> None:
        if "Items" in parsed:
            self.items += len(parsed["Items"])
        elif "Item" in parsed:
            self.items += 1
        for found in (parsed.get("Responses") or {}).values():
            if isinstance(found, list):
                self.items += len(found)

    def reset(self) -> None:
        self.calls, self.items = [], 0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", help="run only the scenario modules whose name starts with this")
    args = parser.parse_args()

    from moto import mock_aws

    from webstore import services
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.db import Table, create_table

    with mock_aws():
        services.reset()
        client = boto3.client("dynamodb", region_name="us-east-1")
        create_table(client, "webstore-test")
        table = Table(client, "webstore-test")
        counter = CallCounter()
        hooked = services.get_services().table.client
        hooked.meta.events.register("before-call.dynamodb", counter.before)
        hooked.meta.events.register("after-call.dynamodb", counter.after)
        ctx: dict[str, Any] = {
            "table": table,
            "demo": import_catalog(table, parse_catalog(demo_catalog_data())),
        }

        print(f"{'operation':<46} {'status':>6} {'trips':>5} {'items':>6}  calls")
        for name in scenario_modules(args.only):
            module = importlib.import_module(f"scripts.bench.{name}")
            module.setup(ctx)
            for label, handler, method, path, kwargs in module.scenarios(ctx):
                counter.reset()
                result = handler(api_event(method, path, **kwargs), LambdaContext())
                trips, calls = len(counter.calls), ",".join(counter.calls)
                print(f"{label:<46} {result['statusCode']:>6} {trips:>5} {counter.items:>6}  {calls}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
