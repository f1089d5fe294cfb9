"""Money in limbo: an attempt that stopped after its claim (the process died, the player never
came back) is finished by the processor once its reconciliation falls due — its charge recorded
when the basket is still sold for it, refunded otherwise — and the books balance."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from functions.operator import update_package
from functions.storefront import get_checkout_page
from infra.cli import main
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout import attempt_key_of, basket_json, new_basket, pay
from tests.integration.storefront.test_pay_faults import (
    Crash,
    RecordingGateway,
    assert_books_balance,
    inject,
    recorded_payments,
)
from tests.support.clock import Clock
from tests.support.demo import DemoStore
from tests.support.environment import TABLE
from tests.support.invocation import Invoke
from webstore import keys
from webstore.checkout import checkout
from webstore.events import DomainEvent
from webstore.repo.checkout_attempts import RECONCILE_AFTER
from webstore.repo.schedule import ScheduleRepository
from webstore.services import get_services
from webstore.subscriptions.processor import OutcomeKind, run_due

START = datetime(2026, 3, 15, 12, 0, 0, tzinfo=UTC)


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch, demo: DemoStore) -> RecordingGateway:
    books = RecordingGateway()
    monkeypatch.setattr(checkout, "gateway_for", lambda services, store: books)
    return books


@pytest.fixture
def clock(demo: DemoStore) -> Clock:
    controlled = Clock(START)
    get_services().clock = controlled
    return controlled


def an_hour_later(clock: Clock) -> list[OutcomeKind]:
    clock.advance(3600)
    report = run_due(get_services(), START + timedelta(hours=1))
    return [outcome.kind for outcome in report.outcomes]


def basket_item(demo: DemoStore, ident: str) -> dict[str, object]:
    item = demo.table.get(keys.basket_key(ident))
    assert item is not None
    return item


def test_a_crash_after_the_charge_is_recorded_by_the_clock(
    demo: DemoStore,
    invoke: Invoke,
    gateway: RecordingGateway,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    published: list[DomainEvent],
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    with monkeypatch.context() as patched:
        inject("after the charge", Crash, patched, gateway)
        with pytest.raises(Crash):
            checkout.pay(get_services(), ident, key, "4242 4242 4242 4242")
    assert len(gateway.charged) == 1 and recorded_payments(demo) == []  # money in limbo
    # Not before the bound: a run 14 minutes later leaves it to the player.
    early = run_due(get_services(), START + RECONCILE_AFTER - timedelta(minutes=1))
    assert early.outcomes == []

    assert an_hour_later(clock) == [OutcomeKind.CHECKOUT_RECORDED]
    [payment] = recorded_payments(demo)
    assert payment["checkout_attempt"] == key
    assert basket_json(invoke, demo, ident)["complete"] is True
    assert "payment.completed" in [event.type for event in published]
    assert_books_balance(gateway, demo)
    # Done: the item is gone, a later run finds nothing, the player's resubmit sees it paid.
    assert run_due(get_services(), START + timedelta(hours=2)).outcomes == []
    assert ScheduleRepository(demo.table).backlog(START + timedelta(days=1)).count == 0
    assert pay(invoke, ident, key).status == 303
    assert len(recorded_payments(demo)) == 1
    assert_books_balance(gateway, demo)


def test_a_charge_the_basket_no_longer_sells_for_is_refunded_and_the_basket_freed(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    with monkeypatch.context() as patched:
        inject("after the charge", Crash, patched, gateway)
        with pytest.raises(Crash):
            checkout.pay(get_services(), ident, key, "4242 4242 4242 4242")
    claimed = basket_item(demo, ident)
    assert claimed["checkout_attempt"] == key and "expires_at" in claimed  # the claim keeps an expiry
    disabled = invoke(
        update_package.handler,
        "PUT",
        "/package/10",
        headers=secret_headers(demo.server_secret),
        body={"disabled": True},
    )
    assert disabled.status == 200, disabled.body

    assert an_hour_later(clock) == [OutcomeKind.CHECKOUT_REFUNDED]
    assert gateway.refunded == {key} and recorded_payments(demo) == []
    assert_books_balance(gateway, demo)
    freed = basket_item(demo, ident)
    assert "checkout_attempt" not in freed and "expires_at" in freed
    assert basket_json(invoke, demo, ident)["complete"] is False
    assert run_due(get_services(), START + timedelta(hours=2)).outcomes == []


@pytest.mark.parametrize(
    "step", ["after the claim", "during fulfilment, before recording", "during the commit, after it lands"]
)
def test_every_stopped_attempt_ends_recorded_or_refunded(
    demo: DemoStore,
    invoke: Invoke,
    gateway: RecordingGateway,
    clock: Clock,
    monkeypatch: pytest.MonkeyPatch,
    step: str,
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    with monkeypatch.context() as patched:
        inject(step, Crash, patched, gateway)
        with pytest.raises(Crash):
            checkout.pay(get_services(), ident, key, "4242 4242 4242 4242")

    outcomes = an_hour_later(clock)
    if step == "after the claim":  # nothing was charged: the attempt closes, the basket is free
        assert outcomes == [OutcomeKind.CHECKOUT_REFUNDED] and gateway.charged == {}
        assert basket_json(invoke, demo, ident)["complete"] is False
        assert "checkout_attempt" not in basket_item(demo, ident)
    elif step == "during the commit, after it lands":  # recorded and completed by the crashed run
        assert outcomes == []  # its transaction removed the item
    else:
        assert outcomes == [OutcomeKind.CHECKOUT_RECORDED]
        assert basket_json(invoke, demo, ident)["complete"] is True
    assert_books_balance(gateway, demo)


def test_a_paid_or_declined_checkout_leaves_nothing_to_reconcile(
    demo: DemoStore, invoke: Invoke, clock: Clock
) -> None:
    """Completion and release remove the item in their own transactions (the sandbox)."""
    paid = new_basket(invoke, demo)
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{paid}")
    assert pay(invoke, paid, attempt_key_of(page)).status == 303
    declined = new_basket(invoke, demo)
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{declined}")
    assert pay(invoke, declined, attempt_key_of(page), "4000 0000 0000 0002").status == 402
    assert ScheduleRepository(demo.table).backlog(START + timedelta(days=1)).count == 0
    assert run_due(get_services(), START + timedelta(hours=1)).outcomes == []


def test_webstore_clock_run_an_hour_later_records_it(
    demo: DemoStore,
    invoke: Invoke,
    gateway: RecordingGateway,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The same through the tool: `webstore clock run --until` an hour after the crash."""
    with time_machine.travel(START, tick=False):
        ident = new_basket(invoke, demo)
        key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
        with monkeypatch.context() as patched:
            inject("after the charge", Crash, patched, gateway)
            with pytest.raises(Crash):
                checkout.pay(get_services(), ident, key, "4242 4242 4242 4242")
    until = (START + timedelta(hours=1)).isoformat()
    argv = [
        "clock", "run", "--until", until, "--table", TABLE, "--region", "us-east-1",
        "--storefront-url", "https://shop.example.com", "--operator-url", "https://plugin.example.com",
    ]  # fmt: skip
    capsys.readouterr()
    with time_machine.travel(START + timedelta(hours=1), tick=False):
        assert main(argv) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].startswith(f"checkout recorded: account 1 {ident}/{key} (payment tbx-"), printed
    assert printed[1] == f"1 item(s) due up to {until}: 1 checkout recorded"
    assert [p["checkout_attempt"] for p in recorded_payments(demo)] == [key]
    assert_books_balance(gateway, demo)
