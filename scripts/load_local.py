"""A bounded loopback load test of the local stack: p50/p99 latency and requests per second
at 1 and 16 concurrent clients.

    python scripts/load_local.py                  # starts `webstore serve` on free ports
    python scripts/load_local.py --requests 400   # more requests per level
    python scripts/load_local.py --headless-url http://127.0.0.1:8080/api/accounts/<token>

Each client sends its share of `--requests` GETs (the store, its packages, a basket) one after
another, so the load is closed-loop and bounded in count and in time (`--max-seconds` per level).
With one event loop serving blocking calls, 16 clients queued behind one another; the local
server now runs each request on a worker thread (`infra.threaded`); p50 at 16 clients is then
set by the server's CPU under one GIL (figures and reasons in docs/testing.md).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.support.local_stack import free_port, serving  # noqa: E402


@contextmanager
def local_stack() -> Iterator[dict[str, Any]]:
    """`webstore serve` on free ports with the demo store; yields its credentials (COMPAT names:
    headless_url, plugin_url, public_token, checkout_api_key, server_secret)."""
    with tempfile.TemporaryDirectory() as workdir:
        creds = Path(workdir) / "credentials.json"
        with serving(free_port(), free_port(), creds) as process:
            deadline = time.monotonic() + 60
            while not creds.exists() or not creds.read_text().strip():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the local stack did not start")
                time.sleep(0.2)
            credentials: dict[str, Any] = json.loads(creds.read_text())
            headless_url = credentials["headless_url"]
            while True:
                try:
                    httpx.get(headless_url, timeout=2)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise SystemExit("the local stack did not answer") from None
                    time.sleep(0.2)
            yield credentials


def targets(headless_url: str) -> list[str]:
    basket = httpx.post(f"{headless_url}/baskets", json={}, timeout=10).json()["data"]["ident"]
    return [headless_url, f"{headless_url}/packages", f"{headless_url}/baskets/{basket}"]


def run_level(urls: list[str], clients: int, requests: int, max_seconds: float) -> dict[str, float]:
    latencies: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds
    per_client = max(1, requests // clients)

    def client(offset: int) -> None:
        nonlocal errors
        with httpx.Client(timeout=30) as http:
            for n in range(per_client):
                if time.monotonic() > deadline:
                    return
                started = time.perf_counter()
                response = http.get(urls[(offset + n) % len(urls)])
                took = time.perf_counter() - started
                with lock:
                    latencies.append(took)
                    errors += response.status_code >= 500

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    ordered = sorted(latencies)
    return {
        "clients": clients,
        "requests": len(ordered),
        "errors": errors,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "rps": len(ordered) / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--headless-url", help="a running local stack (default: start one)")
    parser.add_argument("--requests", type=int, default=320, help="requests per level (default 320)")
    parser.add_argument("--max-seconds", type=float, default=60, help="time bound per level (default 60)")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 16])
    args = parser.parse_args(argv)

    def measure(headless_url: str) -> None:
        urls = targets(headless_url)
        run_level(urls, 4, 40, 10)  # warm up: first requests build each route's app
        print(f"{'clients':>7} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p99 ms':>8} {'req/s':>7}")
        for clients in args.clients:
            r = run_level(urls, clients, args.requests, args.max_seconds)
            print(
                f"{r['clients']:>7.0f} {r['requests']:>8.0f} {r['errors']:>6.0f} "
                f"{r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['rps']:>7.1f}",
                flush=True,
            )

    if args.headless_url:
        measure(args.headless_url)
    else:
        with local_stack() as credentials:
            measure(credentials["headless_url"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
