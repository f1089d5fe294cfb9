"""Crash test of the local stack: `kill -9` of the real `webstore serve` process at random moments
during a stream of paid checkouts, a restart after each, and the books checked.

    python scripts/crash_local.py --kills 50          # by hand (figures in docs/testing.md)
    python scripts/crash_local.py --kills 3 --seed 7  # what tests/e2e/test_local_crash.py runs
    python scripts/crash_local.py --kills 50 --keep /tmp/crash  # keep the state and serve.log

Two players' threads pay for baskets one after another (the sandbox's paying card; a coupon on
every other basket). At a random moment (`--min-seconds`..`--max-seconds` after the round's
first pay is answered, so that every round pays, however slow the machine) the process is
killed with SIGKILL, then started again on the same state directory. A pay that got no answer
(the kill came first) is paid again after the restart with the same attempt key, as a player
pressing Pay again does. At the end:

- every basket whose pay was answered 303 to its receipt (paid) is complete after the restarts;
- the store's payments (the operator API's list) are exactly those baskets, one payment each,
  and their amounts are the amounts the checkout pages asked for: money taken (the sandbox
  charges the amount due of each paid attempt, deterministically per attempt key and records
  nothing of its own) = payments recorded + refunds (none in this stream);
- the store's webhook receiver (`serve --webhook`, in this process, up through every kill) got
  a signed `payment.completed` for each of those payments: exactly one event id per payment
  after its dedupe by event id (a redelivery of the same event is allowed, as in AWS).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from tests.e2e.conftest import WebhookReceiver, receiving  # noqa: E402
from tests.support.checkouts import (  # noqa: E402
    Checkout,
    Order,
    all_payments,
    basket,
    open_checkout,
    pay,
    wait_until_answering,
)
from tests.support.local_stack import free_port, serving  # noqa: E402


@dataclass
class Books:
    paid: dict[str, Checkout] = field(default_factory=dict)  # answered paid (303 → receipt)
    unanswered: dict[str, Checkout] = field(default_factory=dict)  # the kill came first
    refused: dict[str, Checkout] = field(default_factory=dict)  # answered, not paid
    kills: int = 0
    delivered: int = 0  # payments whose payment.completed reached the receiver (one event id each)
    redelivered: int = 0  # of those, events the receiver got more than once (absorbed by its dedupe)
    restarts_seconds: list[float] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    answered: threading.Event = field(default_factory=threading.Event)  # a pay answered this round


def stream(creds: dict[str, Any], books: Books, player: str, stop: threading.Event, counter: Any) -> None:
    """Paid checkouts one after another until `stop` (or the server dies under them)."""
    with httpx.Client(timeout=60) as http:
        while not stop.is_set():
            n = next(counter)
            order = Order(f"{player}{n:05d}", [(10, 1)], coupon="WELCOME10" if n % 2 else None)
            try:
                checkout = open_checkout(http, creds, order)
            except httpx.HTTPError:
                return  # killed before the pay: nothing was charged
            try:
                pay(http, creds, checkout)
            except httpx.TransportError:
                with books.lock:
                    books.unanswered[checkout.ident] = checkout
                return
            with books.lock:
                (books.paid if checkout.paid else books.refused)[checkout.ident] = checkout
            books.answered.set()


def start(
    state: Path, creds_file: Path, ports: tuple[int, ...], creds: dict[str, Any]
) -> tuple[Any, subprocess.Popen[bytes], dict[str, Any]]:
    """`webstore serve` on `ports` (storefront, operator, panel, the webhook receiver's), once it
    answers, and its credentials. The first start imports the demo store (its webhook pointing
    at the receiver); a restart (`creds` known) imports nothing: everything, the webhook too,
    comes back from the state directory, and the keys are the first start's."""
    webhook = f"http://127.0.0.1:{ports[3]}/webhooks#{WebhookReceiver.secret}"
    options: tuple[str, ...] = (
        "--state-dir",
        str(state),
        "--admin-port",
        str(ports[2]),
        "--clock-interval",
        "0",
    )
    options += ("--no-catalog",) if creds else ("--webhook", webhook)
    with (state.parent / "serve.log").open("ab") as log:  # every start's output, in order
        context = serving(ports[0], ports[1], creds_file, *options, stdout=log.fileno(), stderr=log.fileno())
        process = context.__enter__()
    if not creds:
        while not creds_file.exists() or not creds_file.read_text().strip():
            if process.poll() is not None:
                raise SystemExit(f"serve exited with {process.returncode}")
            time.sleep(0.1)
        creds = json.loads(creds_file.read_text())
    wait_until_answering(creds, seconds=300)
    return context, process, creds


def run(
    kills: int,
    seed: int,
    min_seconds: float,
    max_seconds: float,
    log: Any = print,
    deliveries: bool = True,
    keep: Path | None = None,
) -> Books:
    rng = random.Random(seed)
    books = Books()
    counter = iter(range(1, 10**9))
    receiver = WebhookReceiver(free_port())
    with contextlib.ExitStack() as scratch:
        # Up through every kill, and stopped however the run ends (a failed check too).
        scratch.enter_context(contextlib.contextmanager(receiving)(receiver))
        workdir = keep or Path(scratch.enter_context(tempfile.TemporaryDirectory()))
        workdir.mkdir(parents=True, exist_ok=True)
        state, creds_file = Path(workdir) / "state", Path(workdir) / "credentials.json"
        ports = (free_port(), free_port(), free_port(), receiver.port)
        creds: dict[str, Any] = {}
        for round_ in range(kills + 1):
            started = time.monotonic()
            context, process, creds = start(state, creds_file, ports, creds)
            try:
                books.restarts_seconds.append(time.monotonic() - started)
                retry_unanswered(creds, books)
                if round_ == kills:
                    break
                stop = threading.Event()
                books.answered.clear()
                players = [
                    threading.Thread(target=stream, args=(creds, books, p, stop, counter))
                    for p in ("Ka", "Kb")
                ]
                for thread in players:
                    thread.start()
                # The kill comes a while after the round's first pay is answered, whatever the
                # machine's load: the stream is paying when it lands.
                books.answered.wait(timeout=600)
                time.sleep(rng.uniform(min_seconds, max_seconds))
                process.send_signal(signal.SIGKILL)
                process.wait(timeout=30)
                books.kills += 1
                stop.set()
                for thread in players:
                    thread.join(timeout=120)
                log(
                    f"kill {books.kills}: {len(books.paid)} paid, {len(books.unanswered)} unanswered so far"
                    f" (restart took {books.restarts_seconds[-1]:.1f} s)"
                )
            finally:
                with contextlib.suppress(Exception):
                    context.__exit__(None, None, None)
                creds_file.unlink(missing_ok=True)
        check(creds, books, state, ports, creds_file, receiver if deliveries else None)
    return books


def retry_unanswered(creds: dict[str, Any], books: Books) -> None:
    """Pay again, with the same attempt key, what got no answer before the kill."""
    with httpx.Client(timeout=60) as http:
        for ident, checkout in list(books.unanswered.items()):
            pay(http, creds, checkout)
            with books.lock:
                del books.unanswered[ident]
                (books.paid if checkout.paid else books.refused)[ident] = checkout


def check(
    creds: dict[str, Any],
    books: Books,
    state: Path,
    ports: Any,
    creds_file: Path,
    receiver: WebhookReceiver | None,
) -> None:
    context, _, creds = start(state, creds_file, ports, creds)
    try:
        with httpx.Client(timeout=60) as http:
            missing = [i for i in books.paid if not basket(http, creds, i)["complete"]]
            assert not missing, f"answered paid, lost after a kill: {missing}"
            payments = [p for p in all_payments(http, creds) if p["player"]["name"].startswith(("Ka", "Kb"))]
        by_player: dict[str, list[dict[str, Any]]] = {}
        for payment in payments:
            by_player.setdefault(payment["player"]["name"], []).append(payment)
        doubled = {name: len(found) for name, found in by_player.items() if len(found) > 1}
        assert not doubled, f"paid twice: {doubled}"
        assert len(payments) == len(books.paid), (len(payments), len(books.paid), books.refused.keys())
        charged = sum(Decimal(c.fields["amount_due"]) for c in books.paid.values())
        recorded = sum(Decimal(p["amount"]) for p in payments)
        assert charged == recorded, (charged, recorded)
        if receiver is None:
            return
        names = set(by_player)
        deadline = time.monotonic() + 120
        while True:
            events: dict[str, set[str]] = {}
            for event in receiver.verified_events():
                if event["type"] == "payment.completed":
                    subject = json.dumps(event["subject"])
                    for name in names & set(_names_in(subject)):
                        events.setdefault(name, set()).add(event["id"])
            undelivered = sorted(names - set(events))
            if not undelivered or time.monotonic() > deadline:
                break
            time.sleep(1)
        assert not undelivered, f"payment.completed never delivered for {undelivered}"
        repeated = {name: ids for name, ids in events.items() if len(ids) > 1}
        assert not repeated, f"more than one payment.completed event per payment: {repeated}"
        books.delivered = len(events)
        received = [e["id"] for e in receiver.verified_events() if e["type"] == "payment.completed"]
        books.redelivered = len({i for i in received if received.count(i) > 1})
    finally:
        context.__exit__(None, None, None)


def _names_in(text: str) -> list[str]:
    import re

    return re.findall(r"K[ab]\d{5}", text)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument(
        "--min-seconds", type=float, default=0.2, help="earliest kill after the round's first paid answer"
    )
    parser.add_argument(
        "--max-seconds", type=float, default=4.0, help="latest kill after the round's first paid answer"
    )
    parser.add_argument(
        "--keep", type=Path, help="keep the state directory and serve's output (serve.log) here"
    )
    parser.add_argument(
        "--skip-deliveries", action="store_true", help="check payments and money only, not webhook deliveries"
    )
    args = parser.parse_args(argv)
    started = time.monotonic()
    deliveries = not args.skip_deliveries
    books = run(
        args.kills, args.seed, args.min_seconds, args.max_seconds, deliveries=deliveries, keep=args.keep
    )
    restarts = sorted(books.restarts_seconds)
    print(
        f"{books.kills} kills, {len(books.paid)} checkouts answered paid, all there after restart;"
        f" {len(books.refused)} answered not paid; payments = paid baskets, amounts match;"
        f" payment.completed delivered for {books.delivered} ({books.redelivered} of them more than once)."
        f" Restart median {restarts[len(restarts) // 2]:.1f} s; total {time.monotonic() - started:.0f} s."
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
