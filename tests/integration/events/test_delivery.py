"""The delivery use case against moto's table and real receivers on 127.0.0.1: validation,
idempotency, subscriptions, the URL policy's default, timeouts, history, the local worker."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from datetime import timedelta

import pytest

from webstore.events import DomainEvent, InProcessBus
from webstore.keys import account_pk, key, webhook_claim_sk, webhook_sk
from webstore.repo.webhooks import WebhookRepository
from webstore.services import Services
from webstore.webhooks import Outcome, WebhookDispatcher
from webstore.webhooks.envelope import verify
from webstore.webhooks.http import HttpSender
from webstore.webhooks.local import subscribe

from .conftest import SECRET, Behaviour, Received, Receiver, add_endpoint, attempt_history, echo_then

ACCOUNT = 9
Factory = Callable[[Behaviour], Receiver]


def event(event_type: str = "basket.authenticated") -> DomainEvent:
    return DomainEvent(type=event_type, account_id=ACCOUNT, subject={"ident": "9-abc", "custom": {"a": 1}})


def is_validated(services: Services, endpoint_id: int) -> bool:
    item = services.table.get(key(account_pk(ACCOUNT), webhook_sk(endpoint_id)), consistent=True)
    assert item is not None
    return bool(item["validated"])


def wrong_echo(receiver: Receiver, request: Received) -> tuple[int, bytes]:
    return 200, json.dumps({"id": "something-else"}).encode()


pytestmark = pytest.mark.usefixtures("allow_private")


# --- validation ------------------------------------------------------------------------------


def test_a_correct_echo_validates_the_endpoint_then_it_receives_events(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url)

    result = WebhookDispatcher(aws).dispatch(event())

    assert [o.outcome for o in result.outcomes] == [Outcome.DELIVERED]
    assert is_validated(aws, 1)
    [handshake] = receiver.validations
    assert handshake.body["type"] == "validation.webhook"
    assert handshake.body["subject"] == {}
    assert set(handshake.body) == {"id", "type", "date", "subject"}
    assert verify(SECRET, handshake.raw, handshake.headers["X-Signature"])
    assert len(receiver.events) == 1

    WebhookDispatcher(aws).dispatch(event())  # validated now: no second handshake
    assert len(receiver.validations) == 1
    assert len(receiver.events) == 2


@pytest.mark.parametrize(
    "behaviour",
    [
        wrong_echo,
        lambda r, q: (200, b"not json"),
        lambda r, q: (204, b""),  # must be 200 with the id
        lambda r, q: (500, json.dumps({"id": q.body["id"]}).encode()),
    ],
    ids=["wrong-id", "not-json", "204", "500"],
)
def test_a_wrong_answer_leaves_the_endpoint_unvalidated_and_the_event_is_retried(
    aws: Services, receiver_factory: Factory, behaviour: Behaviour
) -> None:
    receiver = receiver_factory(behaviour)
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    published = event()

    result = WebhookDispatcher(aws).dispatch(published)

    assert [o.outcome for o in result.outcomes] == [Outcome.NOT_VALIDATED]
    assert result.retry_needed  # a failed handshake is retried like a failed delivery (issue 10.7)
    assert not is_validated(aws, 1)
    assert receiver.events == []
    [attempt] = attempt_history(aws, ACCOUNT)
    assert attempt.event_type == "validation.webhook"
    assert not attempt.success


def test_validate_pending_runs_the_handshake_without_an_event(
    aws: Services, receiver_factory: Factory
) -> None:
    good, bad = receiver_factory(echo_then()), receiver_factory(wrong_echo)
    add_endpoint(aws, ACCOUNT, 1, good.url)
    add_endpoint(aws, ACCOUNT, 2, bad.url)
    add_endpoint(aws, ACCOUNT, 3, good.url, validated=True)

    dispatcher = WebhookDispatcher(aws)
    pending = [e for e in dispatcher.store.endpoints(ACCOUNT) if not e.validated]
    assert {e.id: dispatcher.validate(ACCOUNT, e) for e in pending} == {1: True, 2: False}
    assert is_validated(aws, 1)
    assert not is_validated(aws, 2)
    assert len(good.validations) == 1  # endpoint 3 was already validated
    assert good.events == bad.events == []


# --- idempotency, subscriptions, policy ------------------------------------------------------


def test_the_same_event_twice_after_success_is_delivered_once(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    published = event()
    dispatcher = WebhookDispatcher(aws)

    first = dispatcher.dispatch(published)
    second = dispatcher.dispatch(published)

    assert [o.outcome for o in first.outcomes] == [Outcome.DELIVERED]
    assert [o.outcome for o in second.outcomes] == [Outcome.ALREADY_DELIVERED]
    assert len(receiver.events) == 1
    claim = aws.table.get(key(account_pk(ACCOUNT), webhook_claim_sk(published.id, 1)), consistent=True)
    assert claim is not None and claim["status"] == "delivered" and claim["attempts"] == 1


def test_an_endpoint_another_worker_is_delivering_to_is_retried_not_posted(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    published = event()
    WebhookRepository(aws.table, aws.secrets).claim(
        ACCOUNT, published.id, published.type, 1, timedelta(seconds=30), aws.now()
    )

    result = WebhookDispatcher(aws).dispatch(published)

    assert [o.outcome for o in result.outcomes] == [Outcome.BUSY]
    assert result.retry_needed
    assert receiver.events == []


def test_endpoints_get_only_the_types_they_subscribe_to(aws: Services, receiver_factory: Factory) -> None:
    payments, everything = receiver_factory(echo_then()), receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, payments.url, events=["payment.completed"], validated=True)
    add_endpoint(aws, ACCOUNT, 2, everything.url, validated=True)
    dispatcher = WebhookDispatcher(aws)

    dispatcher.dispatch(event("basket.authenticated"))
    dispatcher.dispatch(event("payment.completed"))

    assert [r.body["type"] for r in payments.events] == ["payment.completed"]
    assert [r.body["type"] for r in everything.events] == ["basket.authenticated", "payment.completed"]


def test_other_accounts_endpoints_are_not_used(aws: Services, receiver_factory: Factory) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT + 1, 1, receiver.url, validated=True)
    assert WebhookDispatcher(aws).dispatch(event()).outcomes == []
    assert receiver.requests == []


def test_by_default_loopback_receivers_are_refused(
    aws: Services, receiver_factory: Factory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEBSTORE_ALLOW_PRIVATE_WEBHOOKS")
    from webstore import services as services_module

    services_module.get_settings.cache_clear()
    aws.settings = services_module.get_settings()
    assert aws.settings.allow_private_webhooks is False
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    add_endpoint(aws, ACCOUNT, 2, receiver.url.replace("127.0.0.1", "localhost"))

    result = WebhookDispatcher(aws).dispatch(event())

    assert [o.outcome for o in result.outcomes] == [Outcome.REFUSED, Outcome.REFUSED]
    assert not result.retry_needed
    assert receiver.requests == []
    history = attempt_history(aws, ACCOUNT)
    assert len(history) == 2
    assert all(a.error and a.error.startswith("refused:") and "loopback" in a.error for a in history)


# --- failures ---------------------------------------------------------------------------------


def test_a_slow_receiver_times_out_and_is_retried(aws: Services, receiver_factory: Factory) -> None:
    def slow(receiver: Receiver, request: Received) -> tuple[int, bytes]:
        time.sleep(1.0)
        return 200, b"{}"

    receiver = receiver_factory(slow)
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)

    result = WebhookDispatcher(aws, sender=HttpSender(timeout=0.3)).dispatch(event())

    assert [(o.outcome, o.detail) for o in result.outcomes] == [(Outcome.FAILED, "timeout")]
    assert result.retry_needed
    [attempt] = attempt_history(aws, ACCOUNT)
    assert attempt.error == "timeout" and attempt.status_code is None and attempt.latency_ms >= 250


def test_redirects_are_not_followed(aws: Services, receiver_factory: Factory) -> None:
    receiver = receiver_factory(echo_then(default=302))
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    result = WebhookDispatcher(aws).dispatch(event())
    assert [(o.outcome, o.detail) for o in result.outcomes] == [(Outcome.FAILED, "HTTP 302")]


def test_a_closed_port_is_a_failed_attempt(aws: Services) -> None:
    add_endpoint(aws, ACCOUNT, 1, "http://127.0.0.1:9/hook", validated=True)
    result = WebhookDispatcher(aws).dispatch(event())
    assert result.outcomes[0].outcome is Outcome.FAILED
    assert attempt_history(aws, ACCOUNT)[0].error == "connection refused"


# --- history ----------------------------------------------------------------------------------


def test_history_is_newest_first_and_limited(aws: Services, receiver_factory: Factory) -> None:
    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    dispatcher = WebhookDispatcher(aws)
    published = [event(f"payment.{name}") for name in ("completed", "declined", "refunded")]
    for item in published:
        dispatcher.dispatch(item)
        time.sleep(0.002)

    history = attempt_history(aws, ACCOUNT, limit=2)

    assert [a.event_id for a in history] == [published[2].id, published[1].id]
    assert all(a.success and a.status_code == 200 and a.url == receiver.url for a in history)
    assert attempt_history(aws, ACCOUNT + 1) == []


# --- the local stack ----------------------------------------------------------------------------


def test_the_local_bus_delivers_in_the_background_with_retries(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(echo_then([500]))
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    bus = InProcessBus()
    worker = subscribe(bus, aws, retry_delays=(0.05, 0.05, 0.05))
    try:
        started = time.monotonic()
        published = event()
        bus.publish(published)
        assert time.monotonic() - started < 0.1  # publishing never waits for the receiver
        assert worker.wait_idle(10)
    finally:
        worker.stop()

    assert [r.body["id"] for r in receiver.events] == [published.id, published.id]
    attempts = [a for a in attempt_history(aws, ACCOUNT) if a.event_id == published.id]
    assert sorted((a.attempt, a.success) for a in attempts) == [(1, False), (2, True)]


def test_the_local_worker_gives_up_after_its_retries(aws: Services, receiver_factory: Factory) -> None:
    receiver = receiver_factory(echo_then(default=500))
    add_endpoint(aws, ACCOUNT, 1, receiver.url, validated=True)
    bus = InProcessBus()
    worker = subscribe(bus, aws, retry_delays=(0.01, 0.01))
    try:
        bus.publish(event())
        assert worker.wait_idle(10)
    finally:
        worker.stop()
    assert len(receiver.events) == 3  # the first try and two retries


# --- the manage link (webstore.subscriptions.manage_links) --------------------------------------


def test_subscription_webhooks_carry_the_signed_manage_link(aws: Services, receiver_factory: Factory) -> None:
    from webstore.subscriptions.manage_links import open_token

    receiver = receiver_factory(echo_then())
    add_endpoint(aws, ACCOUNT, 1, receiver.url)
    dispatcher = WebhookDispatcher(aws)
    dispatcher.dispatch(
        DomainEvent(
            type="payment.completed",
            account_id=ACCOUNT,
            subject={"recurring_payment_reference": "tbx-5-0a0b0c0d"},
        )
    )
    dispatcher.dispatch(
        DomainEvent(
            type="recurring-payment.renewed", account_id=ACCOUNT, subject={"reference": "tbx-5-0a0b0c0d"}
        )
    )
    dispatcher.dispatch(
        DomainEvent(
            type="payment.completed", account_id=ACCOUNT, subject={"transaction_id": "tbx-6-0a0b0c0d"}
        )
    )
    payment, recurring, one_off = receiver.events
    for received in (payment, recurring):
        url = received.body["subject"]["manage_url"]
        prefix = f"{aws.settings.storefront_url}/subscriptions/"
        assert url.startswith(prefix)
        assert open_token(aws.secrets, url.removeprefix(prefix)) == (ACCOUNT, "tbx-5-0a0b0c0d")
        assert verify(SECRET, received.raw, received.headers["X-Signature"])  # signed with the link
    assert "manage_url" not in one_off.body["subject"]
