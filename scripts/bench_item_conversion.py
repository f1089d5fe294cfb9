#!/usr/bin/env python3
"""Item conversion to and from DynamoDB JSON: boto3's TypeSerializer/TypeDeserializer (before)
against webstore.attribute_values (after), on the items our requests read and write.

The items are the demo store imported into an in-memory table (moto), as the storefront's catalog
reads get them: the store, its categories and packages, plus a basket holding one package. For
each direction the best of several rounds is printed in microseconds per item, with the speed-up.

    .venv/bin/python scripts/bench_item_conversion.py [--rounds 7]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
REGION = "eu-west-1"


def _items() -> list[dict[str, Any]]:
    """The demo store and a basket, as DynamoDB JSON (what a GetItem/Query answers)."""
    os.environ.update(
        AWS_ACCESS_KEY_ID="testing",
        AWS_SECRET_ACCESS_KEY="testing",
        AWS_DEFAULT_REGION=REGION,
        WEBSTORE_REGION=REGION,
        WEBSTORE_TABLE_NAME="bench",
        WEBSTORE_EVENTS="local",
        WEBSTORE_STOREFRONT_URL="https://shop.bench",
        WEBSTORE_OPERATOR_URL="https://plugin.bench",
    )
    sys.path[:0] = [str(ROOT), str(ROOT / "shared")]
    import boto3
    from moto import mock_aws

    from webstore import db, services
    from webstore.catalog_import import import_catalog, parse_catalog
    from webstore.storefront import baskets

    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        db.create_table(client, "bench")
        catalog = json.loads((ROOT / "shared" / "webstore" / "demo" / "store.json").read_text())
        result = import_catalog(db.Table(client, "bench"), parse_catalog(catalog))
        services.reset()
        live = services.get_services()
        basket = baskets.create_basket(
            live, result.public_token, baskets.NewBasket(username="Bench"), "192.0.2.1"
        )
        baskets.add_package(live, None, basket.ident, baskets.AddPackage(package_id=10, quantity=1))
        items: list[dict[str, Any]] = client.scan(TableName="bench")["Items"]
        services.reset()
    return items


def _best(rounds: int, works: tuple[Callable[[], object], ...], count: int) -> list[float]:
    """Best time of each work over the rounds, in µs per item. The works take turns within each
    round, so a burst of load on a shared machine hits them alike; noise only ever adds time."""
    best = [float("inf")] * len(works)
    for _ in range(rounds):
        for i, work in enumerate(works):
            started = time.perf_counter()
            work()
            best[i] = min(best[i], time.perf_counter() - started)
    return [b / count * 1e6 for b in best]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=7, help="rounds per measurement (default 7)")
    parser.add_argument("--repeat", type=int, default=200, help="passes over the items per round")
    args = parser.parse_args()
    wire = _items()
    from boto3.dynamodb.types import TypeDeserializer, TypeSerializer

    from webstore import attribute_values

    serializer, deserializer = TypeSerializer(), TypeDeserializer()
    python = [{k: deserializer.deserialize(v) for k, v in item.items()} for item in wire]
    assert [attribute_values.deserialize(i) for i in wire] == python  # same answers, or no figures
    assert [attribute_values.serialize(i) for i in python] == [
        {k: serializer.serialize(v) for k, v in i.items()} for i in python
    ]
    count = len(wire) * args.repeat
    attributes = sum(len(i) for i in wire)

    def boto3_read() -> None:
        for _ in range(args.repeat):
            for item in wire:
                {k: deserializer.deserialize(v) for k, v in item.items()}

    def boto3_write() -> None:
        for _ in range(args.repeat):
            for item in python:
                {k: serializer.serialize(v) for k, v in item.items()}

    def ours_read() -> None:
        for _ in range(args.repeat):
            for item in wire:
                attribute_values.deserialize(item)

    def ours_write() -> None:
        for _ in range(args.repeat):
            for item in python:
                attribute_values.serialize(item)

    print(
        f"{len(wire)} items ({attributes} top-level attributes), {args.repeat} passes, best of "
        f"{args.rounds} rounds; µs per item"
    )
    print(f"{'':14} {'boto3':>8} {'ours':>8} {'speed-up':>9}")
    for name, before, after in (
        ("deserialize", boto3_read, ours_read),
        ("serialize", boto3_write, ours_write),
    ):
        old, new = _best(args.rounds, (before, after), count)
        print(f"{name:14} {old:8.2f} {new:8.2f} {old / new:8.1f}x")


if __name__ == "__main__":
    main()
