"""Soak test of the local stack: N paid checkouts with coupons, gift cards and subscriptions
against a real `webstore serve`, its memory (RSS) sampled every `--every` checkouts.

    python scripts/soak_local.py --checkouts 1000 --every 50   # by hand (docs/testing.md)
    python scripts/soak_local.py --checkouts 30 --every 10     # what tests/e2e/test_local_soak.py runs
    python scripts/soak_local.py --big 150 --readers 16        # a big checkout beside 16 readers

Each checkout: a Diamond Sword and a Pet Unlock; every 2nd with the coupon WELCOME10; every 3rd
with a new gift card (made through the operator API) covering part of it; every 5th adds the
VIP subscription. Memory after warm-up (the first two samples) should grow only with the data
the checkouts add (a few KB each), not per checkout as a mock table's copies did.

`--big N` instead pays one basket of N items while `--readers` clients read the store, its
packages and a basket in a closed loop, and prints the readers' p50/p99 before and during it.
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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.support.checkouts import (  # noqa: E402
    Order,
    new_gift_card,
    open_checkout,
    pay,
    rss_mb,
    urls,
    wait_until_answering,
)
from tests.support.local_stack import free_port, serving  # noqa: E402


@dataclass
class Soak:
    samples: list[tuple[int, float]] = field(default_factory=list)  # (checkouts done, RSS MB)
    paid: int = 0
    seconds: float = 0.0

    def growth_per_checkout(self, warm_up: int = 2) -> float:
        """MB per checkout between the first sample after warm-up and the last."""
        (n0, m0), (n1, m1) = self.samples[min(warm_up, len(self.samples) - 2)], self.samples[-1]
        return (m1 - m0) / max(1, n1 - n0)


@contextmanager
def local_stack() -> Iterator[tuple[dict[str, Any], int]]:
    """`webstore serve` (fresh state, no background clock) on free ports: (credentials, pid)."""
    with tempfile.TemporaryDirectory() as workdir:
        creds_file = Path(workdir) / "credentials.json"
        with serving(free_port(), free_port(), creds_file, "--clock-interval", "0") as process:
            deadline = time.monotonic() + 180
            while not creds_file.exists() or not creds_file.read_text().strip():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the local stack did not start")
                time.sleep(0.1)
            creds: dict[str, Any] = json.loads(creds_file.read_text())
            wait_until_answering(creds)
            yield creds, process.pid


def order(n: int, http: httpx.Client, creds: dict[str, Any]) -> Order:
    packages = [(10, 1), (12, 1)] + ([(1, 1)] if n % 5 == 0 else [])
    gift_card = new_gift_card(http, creds, "2.00") if n % 3 == 0 else None
    return Order(f"Soak{n:05d}", packages, coupon="WELCOME10" if n % 2 == 0 else None, gift_card=gift_card)


def soak(creds: dict[str, Any], pid: int, checkouts: int, every: int, log: Any = print) -> Soak:
    result = Soak(samples=[(0, rss_mb(pid))])
    started = time.monotonic()
    with httpx.Client(timeout=120) as http:
        for n in range(1, checkouts + 1):
            checkout = pay(http, creds, open_checkout(http, creds, order(n, http, creds)))
            if not checkout.paid:
                raise AssertionError(f"checkout {n} not paid: {checkout.status} {checkout.location}")
            result.paid += 1
            if n % every == 0:
                result.samples.append((n, rss_mb(pid)))
                rss, took = result.samples[-1][1], time.monotonic() - started
                log(f"{n:>6} checkouts  RSS {rss:8.1f} MB  {took:7.1f} s")
    result.seconds = time.monotonic() - started
    return result


def readers_beside_big(creds: dict[str, Any], items: int, readers: int, log: Any = print) -> dict[str, float]:
    """Readers' latencies for a quiet while, then while one basket of `items` items is paid."""
    base, _ = urls(creds)
    with httpx.Client(timeout=60) as http:
        basket = http.post(f"{base}/baskets", json={"username": "Reader"}).json()["data"]["ident"]
        big = open_checkout(http, creds, Order("BigBuyer", [(10, items)]))
    targets = [base, f"{base}/packages", f"{base}/baskets/{basket}"]
    phase = {"name": "before"}
    latencies: dict[str, list[float]] = {"before": [], "during": []}
    stop = threading.Event()
    lock = threading.Lock()

    def reader(offset: int) -> None:
        with httpx.Client(timeout=120) as http:
            n = offset
            while not stop.is_set():
                started = time.perf_counter()
                http.get(targets[n % len(targets)]).raise_for_status()
                took = time.perf_counter() - started
                with lock:
                    if phase["name"] in latencies:
                        latencies[phase["name"]].append(took)
                n += 1

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(readers)]
    for thread in threads:
        thread.start()
    time.sleep(10)
    phase["name"] = "during"
    started = time.perf_counter()
    with httpx.Client(timeout=600) as http:
        pay(http, creds, big)
    pay_seconds = time.perf_counter() - started
    phase["name"] = "after"
    stop.set()
    for thread in threads:
        thread.join()
    figures: dict[str, float] = {"pay_seconds": pay_seconds, "paid": float(big.paid)}
    for name, found in latencies.items():
        ordered = sorted(found)
        figures[f"{name}_n"] = len(ordered)
        figures[f"{name}_p50_ms"] = statistics.median(ordered) * 1000
        figures[f"{name}_p99_ms"] = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] * 1000
        figures[f"{name}_max_ms"] = ordered[-1] * 1000
    log(json.dumps({k: round(v, 1) for k, v in figures.items()}))
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--checkouts", type=int, default=1000)
    parser.add_argument("--every", type=int, default=50, help="sample memory every so many checkouts")
    parser.add_argument("--big", type=int, help="pay one basket of this many items beside the readers")
    parser.add_argument("--readers", type=int, default=16)
    args = parser.parse_args(argv)
    with local_stack() as (creds, pid):
        if args.big:
            readers_beside_big(creds, args.big, args.readers)
            return 0
        result = soak(creds, pid, args.checkouts, args.every)
    print(
        f"{result.paid} checkouts paid in {result.seconds:.0f} s; RSS {result.samples[0][1]:.1f} MB at start,"
        f" {result.samples[-1][1]:.1f} MB at the end; after warm-up"
        f" {result.growth_per_checkout() * 1024:.1f} KB per checkout"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
