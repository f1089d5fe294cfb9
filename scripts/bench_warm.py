#!/usr/bin/env python3
"""Warm requests: each handler invoked in process, many times, against a moto server in another
process; the median per route, and what it costs per million on paper.

The handlers are the real Lambda entry points (`handler(event, context)`: Powertools, Mangum,
FastAPI, our code), with the environment Lambda gives them (scripts/bench_cold_start.py) and an
unsampled trace header. DynamoDB is `python -m moto.server` on loopback, in its own process, so
this process's CPU time is ours alone (boto3's HTTP client included, moto's work not). Seeded
with the demo store and a basket, as the cold-start script does.

Per route: the median wall time (moto's answer time included), the median CPU time of this
process, and the DynamoDB calls one request makes. Lambda gives a function CPU in proportion to
its memory (1,769 MB is one vCPU), so the duration billed is estimated as

    CPU ms x 1769 / memory MB  +  DynamoDB calls x DYNAMODB_MS (as if sequential: an upper bound)

and priced with the figures in docs/deploy.md ("Cost per million requests"), which --mix turns
into the cost of a stated storefront mix.

    .venv/bin/python scripts/bench_warm.py [--requests 50] [--handler functions.storefront.x ...]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from scripts import bench_cold_start as cold  # noqa: E402

# A DynamoDB round trip from Lambda in the same region (single-digit ms; 4 is a typical p50).
DYNAMODB_MS = 4.0
# One vCPU per 1,769 MB (Lambda's documented allocation).
FULL_CPU_MB = 1769
# Bodies of the write routes whose empty body would only be refused (422).
BODIES = {"addBasketPackage": {"package_id": 10, "quantity": 1}}

# Prices, us-east-1, USD (docs/deploy.md, "Cost per million requests").
HTTP_API_PER_MILLION = 1.00
LAMBDA_REQUESTS_PER_MILLION = 0.20
LAMBDA_ARM_GB_SECOND = 0.0000133334
READ_UNITS_PER_MILLION = 0.125  # on-demand
WRITE_UNITS_PER_MILLION = 0.625
LOGS_PER_GB = 0.50
XRAY_TRACES_PER_MILLION = 5.00
# Log bytes per request: Lambda's START, END and REPORT lines (~270 bytes) + 26 bytes per event.
LOG_BYTES_PER_REQUEST = 270 + 3 * 26
TRACE_RATE = 0.01  # production's sampling rule: PRODUCTION_TRACE_SAMPLING in infra/aws/config.py
# A stated storefront mix, per 100 requests: browsing dominates, a basket now and then.
MIX = {
    "getWebstore": 20,
    "getCategories": 25,
    "getPackage": 15,
    "getSidebar": 5,
    "getCustomPages": 5,
    "getBasket": 12,
    "createBasket": 8,
    "addBasketPackage": 10,
}


def _item_bytes(item: dict[str, Any]) -> int:
    """DynamoDB's item size, near enough: attribute names plus their values' bytes."""

    def size(value: Any) -> int:
        ((kind, raw),) = value.items()
        if kind in ("S", "N", "B"):
            return len(raw if isinstance(raw, bytes) else str(raw).encode())
        if kind in ("SS", "NS", "BS"):
            return sum(len(str(v).encode()) for v in raw)
        if kind == "M":
            return 3 + sum(len(k.encode()) + size(v) for k, v in raw.items())
        if kind == "L":
            return 3 + sum(1 + size(v) for v in raw)
        return 1

    return sum(len(name.encode()) + size(value) for name, value in item.items())


def _request_units(operation: str, params: dict[str, Any], parsed: dict[str, Any]) -> tuple[float, float]:
    """(read units, write units) one call consumes on demand: reads 4 KB per unit (half for
    eventually consistent), writes 1 KB per unit, transactions twice."""
    import math

    def reads(items: list[dict[str, Any]], consistent: bool, per_item: bool) -> float:
        factor = 1.0 if consistent else 0.5
        if per_item:
            return sum(math.ceil(max(_item_bytes(i), 1) / 4096) for i in items) * factor
        return max(math.ceil(sum(_item_bytes(i) for i in items) / 4096), 1) * factor

    if operation == "GetItem":
        item = parsed.get("Item")
        return reads([item] if item else [{}], params.get("ConsistentRead", False), True), 0.0
    if operation == "Query":
        return reads(parsed.get("Items", []), params.get("ConsistentRead", False), False), 0.0
    if operation == "BatchGetItem":
        found = [i for items in parsed.get("Responses", {}).values() for i in items]
        consistent = any(r.get("ConsistentRead") for r in params["RequestItems"].values())
        return reads(found or [{}], consistent, True), 0.0
    if operation == "PutItem":
        return 0.0, float(math.ceil(_item_bytes(params["Item"]) / 1024))
    if operation in ("UpdateItem", "DeleteItem"):
        return 0.0, 1.0  # items of ours under 1 KB (the touched item's size is not in the call)
    if operation == "TransactWriteItems":
        units = 0.0
        for action in params["TransactItems"]:
            ((kind, body),) = action.items()
            units += 2 * (math.ceil(_item_bytes(body["Item"]) / 1024) if kind == "Put" else 1)
        return 0.0, units
    if operation == "BatchWriteItem":
        requests = [r for rs in params["RequestItems"].values() for r in rs]
        return 0.0, float(
            sum(math.ceil(_item_bytes(r["PutRequest"]["Item"]) / 1024) for r in requests if "PutRequest" in r)
            + sum(1 for r in requests if "DeleteRequest" in r)
        )
    return 0.0, 0.0


def _start_moto() -> tuple[subprocess.Popen[bytes], str]:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    import urllib.request

    for _ in range(200):
        try:
            urllib.request.urlopen(f"{url}/moto-api/", timeout=1)
            break
        except OSError:
            time.sleep(0.05)
    else:
        server.kill()
        raise SystemExit("moto server did not start")
    return server, url


def _load(url: str, table: dict[str, Any], items: list[dict[str, Any]]) -> None:
    import boto3

    client = boto3.client(
        "dynamodb",
        region_name=cold.REGION,
        endpoint_url=url,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    client.create_table(TableName=cold.TABLE, BillingMode="PAY_PER_REQUEST", **table)
    for start in range(0, len(items), 25):
        chunk = items[start : start + 25]
        client.batch_write_item(RequestItems={cold.TABLE: [{"PutRequest": {"Item": i}} for i in chunk]})


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--requests", type=int, default=50, help="timed requests per route (default 50)")
    parser.add_argument("--handler", action="append", default=[], help="module of an operation (repeatable)")
    parser.add_argument("--interface", default="storefront", help="storefront, operator or all")
    args = parser.parse_args()

    table, items, values = cold._seed(None)
    server, url = _start_moto()
    try:
        _load(url, table, items)
        os.environ.update(cold.ENVIRONMENT)
        os.environ.update(
            WEBSTORE_TABLE_NAME=cold.TABLE,
            WEBSTORE_DYNAMODB_ENDPOINT=url,
            _X_AMZN_TRACE_ID=cold.TRACE_HEADER.format(sampled=0),
        )
        os.environ.pop("POWERTOOLS_TRACE_DISABLED", None)
        _measure(args, values)
    finally:
        server.terminate()
        server.wait(10)


def _measure(args: argparse.Namespace, values: dict[str, str]) -> None:
    import importlib
    import io
    from contextlib import redirect_stdout

    import boto3

    from functions import routes
    from webstore import services

    services.reset()
    boto3.setup_default_session()
    assert boto3.DEFAULT_SESSION is not None
    calls: list[str] = []
    units: list[tuple[float, float]] = []
    boto3.DEFAULT_SESSION.events.register(
        "provide-client-params.dynamodb", lambda model, **_: calls.append(model.name)
    )

    def consumed(http_response: Any, parsed: dict[str, Any], model: Any, **kwargs: Any) -> None:
        params = kwargs.get("context", {}).get("webstore_params", {})
        units.append(_request_units(model.name, params, parsed))

    def keep_params(params: dict[str, Any], context: dict[str, Any], **_: Any) -> None:
        context["webstore_params"] = params

    boto3.DEFAULT_SESSION.events.register("before-parameter-build.dynamodb", keep_params)
    boto3.DEFAULT_SESSION.events.register("after-call.dynamodb", consumed)
    operations = [
        op
        for op in routes.operations()
        if (args.interface == "all" or op.route.interface.value == args.interface)
        and (not args.handler or op.module in args.handler)
        and not op.route.html
    ]
    print(
        f"{len(operations)} routes, {args.requests} warm requests each (after one untimed); medians. "
        f"Estimated Lambda ms = CPU x {FULL_CPU_MB}/memory + round trips x {DYNAMODB_MS:g}\n"
    )
    header = (
        f"{'route':28} {'status':>6} {'wall ms':>8} {'cpu ms':>7} {'MB':>5} {'est. ms':>8} {'RRU':>5}"
        f" {'WRU':>4} {'$/1M':>6} {'floor':>6} {'ratio':>6}  DynamoDB calls"
    )
    print(header)
    print("-" * len(header))
    costs: dict[str, tuple[float, float]] = {}
    for op in operations:
        module = importlib.import_module(op.module)
        route = op.route
        event = cold._event(route.method.upper(), route.path, values)
        if route.operation_id in BODIES:
            event["body"] = json.dumps(BODIES[route.operation_id])
            event["headers"]["content-length"] = str(len(event["body"]))
        sink = io.StringIO()
        with redirect_stdout(sink):  # logs and metrics (EMF) go to stdout
            module.handler(event, cold._Context())
        walls, cpus, statuses = [], [], []
        for _ in range(args.requests):
            calls.clear()
            units.clear()
            sink.seek(0)
            sink.truncate()
            wall, cpu = time.perf_counter(), time.process_time()
            with redirect_stdout(sink):
                response = module.handler(event, cold._Context())
            cpus.append((time.process_time() - cpu) * 1000)
            walls.append((time.perf_counter() - wall) * 1000)
            statuses.append(response.get("statusCode"))
        cpu_ms = statistics.median(cpus)
        trips = len(calls)  # as if sequential: reads started side by side wait less (an upper bound)
        estimate = cpu_ms * FULL_CPU_MB / route.memory_mb + trips * DYNAMODB_MS
        status = max(set(statuses), key=statuses.count)
        read_units, write_units = sum(u[0] for u in units), sum(u[1] for u in units)
        cost = _cost(estimate, route.memory_mb, read_units, write_units)
        floor = _floor(read_units, write_units)
        costs[route.operation_id] = (cost, floor)
        print(
            f"{route.operation_id:28} {status!s:>6} {statistics.median(walls):8.1f} {cpu_ms:7.1f} "
            f"{route.memory_mb:5} {estimate:8.1f} {read_units:5.1f} {write_units:4.0f} {cost:6.3f}"
            f" {floor:6.3f} {cost / floor:6.2f}  {', '.join(calls) or 'none'}"
        )
    mixed = {name: share for name, share in MIX.items() if name in costs}
    if mixed:
        total = sum(mixed.values())
        cost = sum(costs[n][0] * share for n, share in mixed.items()) / total
        floor = sum(costs[n][1] * share for n, share in mixed.items()) / total
        print(
            f"\nmix ({', '.join(f'{n} {s}' for n, s in mixed.items())} per {total}): ${cost:.3f} per "
            f"million requests against a floor of ${floor:.3f}: {cost / floor:.2f}x (target <= 1.30)"
        )


def _floor(read_units: float, write_units: float) -> float:
    """What a request cannot cost less than, per million: the API, Lambda's request fee and the
    request units it must consume."""
    return (
        HTTP_API_PER_MILLION
        + LAMBDA_REQUESTS_PER_MILLION
        + read_units * READ_UNITS_PER_MILLION
        + write_units * WRITE_UNITS_PER_MILLION
    )


def _cost(duration_ms: float, memory_mb: int, read_units: float, write_units: float) -> float:
    """Per million requests: the floor, plus duration (billed per ms), logs and traces."""
    duration = math.ceil(duration_ms) / 1000 * memory_mb / 1024 * LAMBDA_ARM_GB_SECOND * 1e6
    logs = LOG_BYTES_PER_REQUEST * 1e6 / 2**30 * LOGS_PER_GB
    traces = TRACE_RATE * XRAY_TRACES_PER_MILLION
    return _floor(read_units, write_units) + duration + logs + traces


if __name__ == "__main__":
    main()
