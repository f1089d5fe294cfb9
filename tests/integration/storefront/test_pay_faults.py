"""Nothing lost, nothing doubled: a fault injected at each step of the pay sequence, then the
player's retry (the same form again, or a fresh page once the claim has timed out). After every
combination the gateway's books balance: each charge pays the recorded payment or was refunded."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from functions.storefront import get_checkout_page
from tests.integration.storefront.test_checkout import attempt_key_of, basket_json, new_basket, pay
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.checkout import checkout
from webstore.checkout.gateway import ChargeRequest, ChargeResult, ChargeStatus
from webstore.db import Transaction
from webstore.domain.gateways import SANDBOX
from webstore.events import DomainEvent
from webstore.local_stream import LocalStream
from webstore.repo.checkout_attempts import CheckoutAttemptRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payment_effects import PaymentEffectsRepository
from webstore.services import get_services, local_bus
from webstore.storefront.baskets import CHECKOUT_CLAIM_TIMEOUT


class Crash(BaseException):
    """The process dies here: no handler, no cleanup runs (a BaseException nothing catches)."""


class RecordingGateway:
    """A processor that keeps books: one charge per idempotency key, refunds by key."""

    name = SANDBOX.name
    gateway_id = SANDBOX.id

    def __init__(self) -> None:
        self.charged: dict[str, Decimal] = {}
        self.refunded: set[str] = set()
        self.after_charge: Callable[[], None] | None = None

    def charge(self, request: ChargeRequest) -> ChargeResult:
        self.charged.setdefault(request.attempt_key, request.amount)
        if self.after_charge is not None:
            self.after_charge()
        return ChargeResult(ChargeStatus.PAID, reference=f"rec-{request.attempt_key}")

    def find_charge(self, request: ChargeRequest) -> ChargeResult:
        """What the key's charge took, without charging: paid as charged when the amount is the
        request's; a different amount goes back; nothing taken → declined."""
        taken = self.charged.get(request.attempt_key)
        if taken is None:
            return ChargeResult(ChargeStatus.DECLINED, reason="nothing was charged")
        if taken != request.amount:
            self.refund_attempt(request.attempt_key)
            reason = f"charged {taken}, due {request.amount}: refunded"
            return ChargeResult(ChargeStatus.DECLINED, reason=reason)
        return ChargeResult(ChargeStatus.PAID, reference=f"rec-{request.attempt_key}")

    def refund(self, reference: str, amount: Decimal) -> bool:
        return self.refund_attempt(reference.removeprefix("rec-"))

    def refund_attempt(self, attempt_key: str) -> bool:
        if attempt_key in self.charged:
            self.refunded.add(attempt_key)
        return True


def recorded_payments(demo: DemoStore) -> list[dict[str, Any]]:
    items, _ = demo.table.query(
        keys.account_pk(1), sk_between=(keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX))
    )
    return items


def assert_books_balance(gateway: RecordingGateway, demo: DemoStore) -> None:
    """charges = payments + refunds, and no refunded charge pays a payment."""
    paid_by = [p["checkout_attempt"] for p in recorded_payments(demo)]
    assert len(paid_by) <= 1, paid_by
    assert not set(paid_by) & gateway.refunded, (paid_by, gateway.refunded)
    assert set(gateway.charged) == set(paid_by) | gateway.refunded, (
        gateway.charged,
        paid_by,
        gateway.refunded,
    )


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch, demo: DemoStore) -> RecordingGateway:
    books = RecordingGateway()
    monkeypatch.setattr(checkout, "gateway_for", lambda services, store: books)
    return books


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    controlled = Clock(datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC))
    get_services().clock = controlled
    return controlled


def _raise(kind: type[BaseException]) -> Callable[..., Any]:
    def fail(*_args: object, **_kwargs: object) -> Any:
        raise kind("injected fault")

    return fail


def _after(original: Callable[..., Any], kind: type[BaseException]) -> Callable[..., Any]:
    def run_then_fail(*args: object, **kwargs: object) -> Any:
        original(*args, **kwargs)
        raise kind("injected fault")

    return run_then_fail


def inject(step: str, kind: type[BaseException], patch: pytest.MonkeyPatch, books: RecordingGateway) -> None:
    """Make the pay sequence fail at `step` with `kind`."""
    if step == "after the claim":
        patch.setattr(CheckoutAttemptRepository, "claim", _after(CheckoutAttemptRepository.claim, kind))
    elif step == "after the charge":
        patch.setattr(books, "after_charge", _raise(kind))
    elif step == "during fulfilment, before recording":
        patch.setattr(PaymentEffectsRepository, "read", _raise(kind))
    elif step == "during the commit, before it lands":
        patch.setattr(Transaction, "commit", _commit_of_payment(Transaction.commit, kind, lands=False))
    elif step == "during the commit, after it lands":
        patch.setattr(Transaction, "commit", _commit_of_payment(Transaction.commit, kind, lands=True))
    elif step == "after the commit, before the event":  # the local stream's publish of the outbox
        patch.setattr(LocalStream, "publish", _raise(kind))
    else:
        raise AssertionError(step)


def _commit_of_payment(original: Callable[..., None], kind: type[BaseException], *, lands: bool) -> Any:
    """Fail the transaction that records the payment (and completes the basket), before or
    after the table applied it (the answer lost on the way back); other transactions commit."""

    def commit(tx: Transaction) -> None:
        records_payment = any(
            action.kind == "Put" and action.body["Item"].get("entity") == {"S": "payment"}
            for action in tx.actions
        )
        if not records_payment:
            return original(tx)
        if lands:
            original(tx)
        raise kind("injected fault")

    return commit


STEPS = [
    "after the claim",
    "after the charge",
    "during fulfilment, before recording",
    "during the commit, before it lands",
    "during the commit, after it lands",
    "after the commit, before the event",
]
# The payment's transaction completed the basket: the checkout page shows the receipt.
RECORDED = ("during the commit, after it lands", "after the commit, before the event")


@pytest.mark.parametrize("retry", ["same form", "fresh page after the claim timeout", "both"])
@pytest.mark.parametrize("step", STEPS)
def test_a_crash_at_any_step_then_a_retry_charges_once_and_records_once(
    demo: DemoStore,
    invoke: Invoke,
    gateway: RecordingGateway,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    published: list[DomainEvent],
    step: str,
    retry: str,
) -> None:
    ident = new_basket(invoke, demo)
    first = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    with monkeypatch.context() as patched:
        inject(step, Crash, patched, gateway)
        with pytest.raises(Crash):
            checkout.pay(get_services(), ident, first, "4242 4242 4242 4242")

    clock.advance((CHECKOUT_CLAIM_TIMEOUT + timedelta(seconds=1)).total_seconds())
    if retry in ("fresh page after the claim timeout", "both"):
        page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
        if step in RECORDED:  # paid and complete: the receipt, nothing more to pay
            assert page.status == 303 and page.headers["location"].endswith("/receipt"), page.body
        else:
            answer = pay(invoke, ident, attempt_key_of(page))
            assert answer.status in (303, 200), answer.body
        assert_books_balance(gateway, demo)
    if retry in ("same form", "both"):
        answer = pay(invoke, ident, first)
        assert answer.status in (303, 409), answer.body
        assert_books_balance(gateway, demo)
    if retry == "same form":
        assert pay(invoke, ident, first).status in (303, 409)
    assert basket_json(invoke, demo, ident)["complete"] is True
    assert len(recorded_payments(demo)) == 1
    assert_books_balance(gateway, demo)
    # The event rode the payment's transaction: published then, or by the start-up sweep of
    # the table's stream after the crash (a restart), never lost.
    LocalStream(OutboxRepository(get_services().table), local_bus()).sweep()
    assert "payment.completed" in [event.type for event in published]


@pytest.mark.parametrize("step", STEPS)
def test_an_unexpected_error_at_any_step_leaves_no_charge_unaccounted(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, monkeypatch: pytest.MonkeyPatch, step: str
) -> None:
    """Not a crash: an error the request survives. It answers, and the books balance at once
    (the charge refunded, or the payment recorded); resubmitting finishes the order."""
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    with monkeypatch.context() as patched:
        inject(step, RuntimeError, patched, gateway)
        answer = pay(invoke, ident, key)
    assert answer.status in (409, 500), answer.body
    assert_books_balance(gateway, demo)
    if answer.status == 409:
        assert "refunded" in answer.body
        key = attempt_key_of(answer)  # the form again, with a fresh attempt
    assert pay(invoke, ident, key).status == 303
    assert basket_json(invoke, demo, ident)["complete"] is True
    assert len(recorded_payments(demo)) == 1
    assert_books_balance(gateway, demo)


def test_an_attempt_that_outlives_its_claim_is_refunded_not_recorded(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attempt A is slow: while it charges, its claim times out and attempt B pays the basket.
    A's charge slipped through; fulfilment refuses A (its claim is gone) and A refunds itself."""
    ident = new_basket(invoke, demo)
    slow = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    fast = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))

    def meanwhile() -> None:
        gateway.after_charge = None
        clock.advance((CHECKOUT_CLAIM_TIMEOUT + timedelta(seconds=1)).total_seconds())
        assert checkout.pay(get_services(), ident, fast, "4242").redirect

    gateway.after_charge = meanwhile
    answer = checkout.pay(get_services(), ident, slow, "4242")
    assert answer.redirect  # the basket is paid (by B); A's money went back
    assert gateway.refunded == {slow}
    assert [p["checkout_attempt"] for p in recorded_payments(demo)] == [fast]
    assert_books_balance(gateway, demo)
