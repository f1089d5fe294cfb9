"""Invoice numbers: per store and year, taken in the payment's own transaction, dense and never
reused under concurrent payments, for every source of a payment (createPayment through its
handler, the hosted checkout, a renewal) — and without a round trip of their own."""

from __future__ import annotations

from datetime import UTC, datetime

import time_machine

from functions.operator import create_payment
from tests.integration.operator.support import manual_payment, secret_headers
from tests.integration.subscriptions.support import buy, run
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.threads import in_threads
from webstore import keys
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.subscriptions.processor import OutcomeKind

PAYMENTS = 20


def stored(demo: DemoStore) -> list[PaymentRecord]:
    return PaymentRepository(demo.table).latest(1, 200)


def test_twenty_concurrent_payments_get_invoice_numbers_one_to_twenty(
    demo: DemoStore, invoke: Invoke
) -> None:
    """Twenty createPayment requests at once (each thread a Lambda instance): the year's invoice
    numbers are 1..20, no gap and no repeat; the series ends at 20. A request that lost every
    race within its retry budget answers 409 having recorded nothing (no number spent): the
    plugin sends it again, as it would."""
    paid: list[str] = []
    busy: list[int] = []

    def pay(index: int) -> None:
        body = {"ign": f"Racer{index}", "packages": [{"id": 10}], "price": 2, "note": ""}
        for _ in range(5):
            answer = invoke(
                create_payment.handler,
                "POST",
                "/payments",
                body=body,
                headers=secret_headers(demo.server_secret),
            )
            if answer.status != 409:
                break
            busy.append(index)
        assert answer.status == 200, answer.body
        paid.append(answer.json()["txn_id"])

    with time_machine.travel(datetime(2026, 3, 1, 9, tzinfo=UTC), tick=False):
        in_threads(pay, [(i,) for i in range(PAYMENTS)])
    assert len(set(paid)) == PAYMENTS
    payments = stored(demo)
    assert len(payments) == PAYMENTS
    numbers = sorted(p.invoice.number for p in payments if p.invoice and p.invoice.year == 2026)
    assert numbers == list(range(1, PAYMENTS + 1))
    sequences = demo.table.get(keys.key(keys.account_pk(1), keys.SEQUENCES_ITEM), consistent=True)
    assert sequences is not None and int(sequences["invoice_2026"]) == PAYMENTS
    assert len(busy) < PAYMENTS  # most land at the first request


def test_each_year_has_its_own_series(demo: DemoStore, invoke: Invoke) -> None:
    with time_machine.travel(datetime(2026, 12, 31, 23, 59, tzinfo=UTC), tick=False):
        manual_payment(invoke, demo.server_secret, price=1)
        manual_payment(invoke, demo.server_secret, price=1)
    with time_machine.travel(datetime(2027, 1, 1, 0, 1, tzinfo=UTC), tick=False):
        manual_payment(invoke, demo.server_secret, price=1)
    labels = [p.invoice.invoice_label for p in reversed(stored(demo)) if p.invoice]
    assert labels == ["2026-00001", "2026-00002", "2027-00001"]


def test_a_checkout_and_its_renewal_continue_the_series(demo: DemoStore, invoke: Invoke) -> None:
    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    renewal = datetime(2026, 7, 1, 12, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as traveller:
        manual_payment(invoke, demo.server_secret, price=1)  # invoice 1
        buy(invoke, demo, {"package_id": 1})  # the hosted checkout: invoice 2
        traveller.move_to(renewal)
        [outcome] = run(renewal).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
    labels = [p.invoice.invoice_label for p in reversed(stored(demo)) if p.invoice]
    assert labels == ["2026-00001", "2026-00002", "2026-00003"]
