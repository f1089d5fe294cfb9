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
    boto3.DEFAULT_SESSION.events.register(
        "provide-client-params.dynamodb", lambda model, **_: calls.append(model.name)
    )
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
        f"{'route':36} {'status':>6} {'wall ms':>8} {'cpu ms':>7} {'MB':>5} {'est. ms':>8}  DynamoDB calls"
    )
    print(header)
    print("-" * len(header))
    for op in operations:
        module = importlib.import_module(op.module)
        route = op.route
        event = cold._event(route.method.upper(), route.path, values)
        sink = io.StringIO()
        with redirect_stdout(sink):  # logs and metrics (EMF) go to stdout
            module.handler(event, cold._Context())
        walls, cpus, statuses = [], [], []
        for _ in range(args.requests):
            calls.clear()
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
        print(
            f"{route.operation_id:36} {status!s:>6} {statistics.median(walls):8.1f} {cpu_ms:7.1f} "
            f"{route.memory_mb:5} {estimate:8.1f}  {', '.join(calls) or 'none'}"
        )


if __name__ == "__main__":
    main()
