"""A renewal the bank wants the player to authenticate (issue 13, the Subscriptions bullet),
through the real handlers under moto with time-machine: declined with a link (status-changed
carries it, the manage page shows it), completed by the player on the sandbox's page (the same
use case as Stripe's `payment_intent.succeeded`), recorded once; a retry that charged meanwhile
and a completion after the subscription ended are refunded."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import urlsplit

import pytest
import time_machine

from functions.operator import update_payment
from functions.storefront import (
    get_sandbox_authentication,
    get_subscription_page,
    submit_sandbox_authentication,
)
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout import payments
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.checkout.gateway import (
    SANDBOX_AUTHENTICATION_CARD,
    ChargeResult,
    ChargeStatus,
    OffSessionCharge,
    SandboxGateway,
)
from webstore.events import DomainEvent
from webstore.recurring import RecurringStatus
from webstore.repo.schedule import key_of_sk
from webstore.services import get_services
from webstore.subscriptions import manage_links
from webstore.subscriptions.processor import OutcomeKind, run_due

from .support import ACCOUNT, buy, offline_commands, recurring, run

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
VIP_RENEWAL_COMMAND = "say {username} renewed VIP"
FORM = {"content-type": "application/x-www-form-urlencoded", "origin": "https://shop.test"}
ASKS = "Your bank needs you to confirm the renewal payment"


@pytest.fixture
def refunds(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sandbox refunds asked for (it moves no money; the test sees that it was asked)."""
    asked: list[str] = []
    original = SandboxGateway.refund

    def refund(self: SandboxGateway, reference: str, amount: Decimal) -> bool:
        asked.append(reference)
        return original(self, reference, amount)

    monkeypatch.setattr(SandboxGateway, "refund", refund)
    return asked


@pytest.fixture
def traveller(demo: DemoStore) -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(START, tick=False) as coordinates:
        yield coordinates


def declined_for_authentication(
    invoke: Invoke, demo: DemoStore, traveller: time_machine.Coordinates, published: list[DomainEvent]
) -> tuple[str, str]:
    """Steve's VIP bought with the card that needs authentication off-session, its renewal
    declined for that: (reference, the link the player got)."""
    reference: str = buy(invoke, demo, {"package_id": 1}, card=SANDBOX_AUTHENTICATION_CARD)["txn_id"]
    published.clear()
    traveller.move_to(RENEWAL)
    [outcome] = run(RENEWAL).outcomes
    assert outcome.kind is OutcomeKind.RENEWAL_DECLINED, outcome
    standing = recurring(reference)
    assert (standing.status, standing.fail_count) == (RecurringStatus.PAST_DUE, 1)
    action = standing.renewal_action
    assert action is not None
    assert action.url == f"https://shop.test/sandbox/authentication/{demo.token}/renewal-{reference}-2-1"
    assert (action.cycle, action.amount, action.reference) == (
        2,
        Decimal("4.99"),
        f"sandbox-{action.charge_key}",
    )
    return reference, action.url


def manage_page(invoke: Invoke, reference: str) -> Response:
    url = manage_links.manage_url("https://shop.test", get_services().secrets, ACCOUNT, reference)
    page = invoke(get_subscription_page.handler, "GET", urlsplit(url).path)
    assert page.status == 200, page.body
    return page


def confirm(invoke: Invoke, link: str) -> Response:
    return invoke(
        submit_sandbox_authentication.handler, "POST", urlsplit(link).path, raw_body="", headers=FORM
    )


def test_the_player_completes_a_renewal_the_bank_asked_them_to_authenticate_once(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    refunds: list[str],
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    [changed] = published
    assert changed.type == "recurring-payment.status-changed"
    assert changed.subject["status"] == {"id": 2, "description": "Past due"}
    assert changed.subject["action_url"] == link
    page = manage_page(invoke, reference)
    assert ASKS in page.body and f'id="complete-payment" href="{link}"' in page.body

    traveller.shift(timedelta(hours=3))
    shown = invoke(get_sandbox_authentication.handler, "GET", urlsplit(link).path)
    assert shown.status == 200, shown.body
    assert 'id="confirm"' in shown.body and "$4.99 USD" in shown.body and "VIP" in shown.body
    published.clear()
    done = confirm(invoke, link)
    assert done.status == 200 and "Payment confirmed" in done.body, done.body

    standing = recurring(reference)
    assert (standing.status, standing.payment_sequence, standing.fail_count) == (RecurringStatus.ACTIVE, 2, 0)
    assert standing.renewal_action is None and standing.retry_at is None
    assert standing.next_payment_at == datetime(2026, 8, 1, 12, tzinfo=UTC)  # the billing day kept
    renewal = payments(invoke, demo)[0]
    assert renewal["txn_id"] != reference and renewal["amount"] == "4.99"
    assert recurring(reference).payment_history == [reference, renewal["txn_id"]]
    assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1
    assert [e.type for e in published] == [
        "payment.completed",
        "recurring-payment.renewed",
        "recurring-payment.status-changed",
    ]
    back = published[-1].subject
    assert back["status"] == {"id": 1, "description": "Active"} and "action_url" not in back
    assert published[0].subject["recurring_payment_reference"] == reference
    assert ASKS not in manage_page(invoke, reference).body

    # Pressed again (a second tab, a reload): nothing more.
    published.clear()
    again = confirm(invoke, link)
    assert again.status == 200 and "Payment confirmed" in again.body
    assert published == [] and len(payments(invoke, demo)) == 2 and refunds == []
    assert invoke(get_sandbox_authentication.handler, "GET", urlsplit(link).path).status == 404
    # The retry the decline scheduled finds the cycle paid and does nothing.
    traveller.move_to(RENEWAL + timedelta(days=1))
    assert run(RENEWAL + timedelta(days=1)).outcomes == []
    assert len(payments(invoke, demo)) == 2
    assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1


class PaysNow(SandboxGateway):
    """The sandbox, but the retry's off-session charge goes through (the bank no longer asks)."""

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        return ChargeResult(ChargeStatus.PAID, reference=self.reference(request.idempotency_key))


def test_a_retry_that_charged_meanwhile_is_not_doubled_the_late_completion_is_refunded(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    refunds: list[str],
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    retry = RENEWAL + timedelta(days=1)
    traveller.move_to(retry)
    [outcome] = run_due(get_services(), retry, gateway=PaysNow()).outcomes
    assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
    assert recurring(reference).renewal_action is None
    published.clear()
    # The player completes the first attempt afterwards (at the processor, the link kept).
    late = confirm(invoke, link)
    assert late.status == 200 and "Payment not taken" in late.body, late.body
    assert "another charge paid this renewal" in late.body
    assert refunds == [f"sandbox-renewal-{reference}-2-1"]
    assert published == [] and len(payments(invoke, demo)) == 2
    assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1
    assert recurring(reference).payment_sequence == 2


def test_completing_after_the_subscription_ended_is_refunded(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    refunds: list[str],
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    refunded = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{reference}",
        body={"status": "refund"},
        headers=secret_headers(demo.server_secret),
    )
    assert refunded.status == 200, refunded.body
    ended = recurring(reference)
    assert ended.status is RecurringStatus.CANCELLED and ended.renewal_action is None
    assert ASKS not in manage_page(invoke, reference).body
    published.clear()
    late = confirm(invoke, link)
    assert late.status == 200 and "Payment not taken" in late.body and "has ended" in late.body
    assert refunds == [f"sandbox-renewal-{reference}-2-1"]
    assert published == [] and len(payments(invoke, demo)) == 1
    assert recurring(reference).status is RecurringStatus.CANCELLED


def test_the_sandbox_page_opens_only_a_charge_it_declined_for_authentication(
    demo: DemoStore, invoke: Invoke, traveller: time_machine.Coordinates, published: list[DomainEvent]
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    path = urlsplit(link).path
    for wrong in (
        path.replace(demo.token, demo.token[:-1] + ("x" if demo.token[-1] != "x" else "y")),
        path.replace(f"{reference}-2-1", f"{reference}-5-1"),  # a cycle not due
        path.replace(f"renewal-{reference}-2-1", "tier-upgrade-1-1-2-x-1"),
    ):
        assert invoke(get_sandbox_authentication.handler, "GET", wrong).status == 404, wrong
        assert (
            invoke(submit_sandbox_authentication.handler, "POST", wrong, raw_body="", headers=FORM).status
            == 404
        )
    foreign = {**FORM, "origin": "https://evil.test"}
    refused = invoke(submit_sandbox_authentication.handler, "POST", path, raw_body="", headers=foreign)
    assert refused.status == 403
    assert recurring(reference).payment_sequence == 1 and len(payments(invoke, demo)) == 1


class CompletesDuringTheRetry(SandboxGateway):
    """The retry's off-session charge goes through, and while it is in flight the player
    confirms the first attempt on the sandbox's page (`during` runs then)."""

    def __init__(self, during: Callable[[], None]) -> None:
        super().__init__()
        self.during = during

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        self.during()
        return ChargeResult(ChargeStatus.PAID, reference=self.reference(request.idempotency_key))


def test_a_completion_while_a_retry_holds_the_subscription_waits_then_is_refunded(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    refunds: list[str],
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    answers: list[Response] = []
    retry = RENEWAL + timedelta(days=1)
    traveller.move_to(retry)
    [outcome] = run_due(
        get_services(), retry, gateway=CompletesDuringTheRetry(lambda: answers.append(confirm(invoke, link)))
    ).outcomes
    assert outcome.kind is OutcomeKind.RENEWAL_CHARGED
    [busy] = answers
    assert busy.status == 409 and "try again in a moment" in busy.body  # nothing recorded, nothing taken
    assert refunds == [] and len(payments(invoke, demo)) == 2
    again = confirm(invoke, link)  # the player (or Stripe's redelivery) tries again
    assert again.status == 200 and "another charge paid this renewal" in again.body
    assert refunds == [f"sandbox-renewal-{reference}-2-1"] and len(payments(invoke, demo)) == 2
    assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1


def test_a_retry_whose_claim_ran_out_while_the_player_completed_refunds_its_own_charge(
    demo: DemoStore,
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    published: list[DomainEvent],
    refunds: list[str],
) -> None:
    reference, link = declined_for_authentication(invoke, demo, traveller, published)
    table = get_services().table
    item = key_of_sk(ACCOUNT, reference, recurring(reference).schedule_sk or "")

    def claim_expires_and_the_player_completes() -> None:
        table.update(
            item.as_key(), "SET claimed_until = :past", values={":past": "2000-01-01T00:00:00.000000Z"}
        )
        done = confirm(invoke, link)
        assert done.status == 200 and "Payment confirmed" in done.body, done.body

    retry = RENEWAL + timedelta(days=1)
    traveller.move_to(retry)
    gateway = CompletesDuringTheRetry(claim_expires_and_the_player_completes)
    [outcome] = run_due(get_services(), retry, gateway=gateway).outcomes
    assert outcome.kind is OutcomeKind.STALE and "another charge paid the cycle" in outcome.detail
    assert refunds == [f"sandbox-renewal-{reference}-2-2"]  # the retry's charge, not the player's
    renewal = payments(invoke, demo)[0]
    assert len(payments(invoke, demo)) == 2 and renewal["amount"] == "4.99"
    assert offline_commands(invoke, demo).count(VIP_RENEWAL_COMMAND) == 1
    assert recurring(reference).payment_sequence == 2
    assert run(retry + timedelta(days=3)).outcomes == []
