"""A bounded loopback load test of the local stack: p50/p99 latency and requests per second
at 1, 4 and 16 concurrent clients, on reads or on the checkout mix.

    python scripts/load_local.py                  # starts `webstore serve` on free ports
    python scripts/load_local.py --mix checkout   # paid checkouts instead of reads
    python scripts/load_local.py --requests 400   # more requests per level
    python scripts/load_local.py --headless-url http://127.0.0.1:8080/api/accounts/<token>

`read`: each client sends its share of `--requests` GETs (the store, its packages, a basket) one
after another. `checkout`: each client makes paid checkouts one after another (create a basket,
add a package, read the checkout page, pay: four requests); the figures are per request, and
the pay's own p50 beside them; and the server's CPU per request and the cores it kept busy
(its CPU time over the level's wall time). The load is closed-loop and bounded in count and in time
(`--max-seconds` per level). The machine's load average is printed with each level: on a
shared machine it moves the figures as much as the server does (figures in docs/testing.md).
"""

from __future__ import annotations

import argparse
import json
import os
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

from tests.support.checkouts import HIDDEN, PAYING_CARD  # noqa: E402
from tests.support.local_stack import free_port, serving  # noqa: E402


def cpu_seconds(pid: int | None) -> float:
    """User + system CPU time the process has used so far (0 without a pid: a stack not ours)."""
    if pid is None:
        return 0.0
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextmanager
def local_stack() -> Iterator[tuple[dict[str, Any], int]]:
    """`webstore serve` on free ports with the demo store; yields its credentials (COMPAT names:
    headless_url, plugin_url, public_token, checkout_api_key, server_secret) and its pid."""
    with tempfile.TemporaryDirectory() as workdir:
        creds = Path(workdir) / "credentials.json"
        with serving(free_port(), free_port(), creds) as process:
            deadline = time.monotonic() + 300
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
            yield credentials, process.pid


def targets(headless_url: str) -> list[str]:
    basket = httpx.post(f"{headless_url}/baskets", json={}, timeout=10).json()["data"]["ident"]
    return [headless_url, f"{headless_url}/packages", f"{headless_url}/baskets/{basket}"]


def run_level(
    urls: list[str],
    clients: int,
    requests: int,
    max_seconds: float,
    mix: str = "read",
    pid: int | None = None,
) -> dict[str, float]:
    """One level's figures; with the server's `pid`, also the CPU it spent per request and how
    many cores it kept busy (its CPU seconds over the level's wall time)."""
    latencies: list[float] = []
    pays: list[float] = []
    errors = 0
    lock = threading.Lock()
    deadline = time.monotonic() + max_seconds
    per_client = max(1, requests // clients)
    headless_url = urls[0]
    host = headless_url.split("/api/")[0]

    def timed(http: httpx.Client, method: str, url: str, **kwargs: Any) -> httpx.Response:
        nonlocal errors
        started = time.perf_counter()
        response = http.request(method, url, **kwargs)
        took = time.perf_counter() - started
        with lock:
            latencies.append(took)
            errors += response.status_code >= 500
            if url.endswith("/pay"):
                pays.append(took)
        return response

    def checkout(http: httpx.Client, n: int, offset: int) -> None:
        created = timed(
            http, "POST", f"{headless_url}/baskets", json={"username": f"Load{offset:02d}x{n:04d}"}
        )
        ident = created.json()["data"]["ident"]
        line = {"package_id": 10, "quantity": 1}
        timed(http, "POST", f"{host}/api/baskets/{ident}/packages", json=line)
        page = timed(http, "GET", f"{host}/checkout/{ident}")
        form = {**dict(HIDDEN.findall(page.text)), "card_number": PAYING_CARD, "subscription_consent": "yes"}
        timed(http, "POST", f"{host}/checkout/{ident}/pay", data=form)

    def client(offset: int) -> None:
        with httpx.Client(timeout=120) as http:
            for n in range(per_client if mix == "read" else max(1, per_client // 4)):
                if time.monotonic() > deadline:
                    return
                if mix == "read":
                    timed(http, "GET", urls[(offset + n) % len(urls)])
                else:
                    checkout(http, n, offset)

    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    started, cpu_before = time.perf_counter(), cpu_seconds(pid)
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.perf_counter() - started
    cpu = cpu_seconds(pid) - cpu_before
    ordered = sorted(latencies)
    return {
        "clients": clients,
        "requests": len(ordered),
        "errors": errors,
        "p50_ms": statistics.median(ordered) * 1000,
        "p99_ms": ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000,
        "rps": len(ordered) / elapsed,
        "pay_p50_ms": statistics.median(pays) * 1000 if pays else 0.0,
        "load": os.getloadavg()[0],
        "cpu_ms": cpu / len(ordered) * 1000,
        "cores": cpu / elapsed,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--headless-url", help="a running local stack (default: start one)")
    parser.add_argument("--requests", type=int, default=320, help="requests per level (default 320)")
    parser.add_argument("--max-seconds", type=float, default=60, help="time bound per level (default 60)")
    parser.add_argument("--clients", type=int, nargs="+", default=[1, 4, 16])
    parser.add_argument("--mix", choices=("read", "checkout"), default="read")
    parser.add_argument("--pid", type=int, help="with --headless-url: the server's pid (its CPU per request)")
    args = parser.parse_args(argv)

    def measure(headless_url: str, pid: int | None) -> None:
        urls = targets(headless_url)
        run_level(urls, 4, 40, 10, args.mix)  # warm up: first requests build each route's app
        print(
            f"{'mix':>8} {'clients':>7} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p99 ms':>8}"
            f" {'req/s':>7} {'pay p50':>8} {'load':>5} {'cpu ms/req':>10} {'cores':>5}"
        )
        for clients in args.clients:
            r = run_level(urls, clients, args.requests, args.max_seconds, args.mix, pid)
            print(
                f"{args.mix:>8} {r['clients']:>7.0f} {r['requests']:>8.0f} {r['errors']:>6.0f} "
                f"{r['p50_ms']:>8.1f} {r['p99_ms']:>8.1f} {r['rps']:>7.1f} {r['pay_p50_ms']:>8.1f}"
                f" {r['load']:>5.1f} {r['cpu_ms']:>10.1f} {r['cores']:>5.2f}",
                flush=True,
            )

    if args.headless_url:
        measure(args.headless_url, args.pid)
    else:
        with local_stack() as (credentials, pid):
            measure(credentials["headless_url"], pid)
    return 0


if __name__ == "__main__":
    sys.exit(main())
