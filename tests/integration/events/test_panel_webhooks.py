"""The panel's webhook use cases (webstore.admin.webhooks) against moto's table and real
receivers on 127.0.0.1: endpoints (add, validate, disable, rotate), the delivery log the
dispatcher keeps (status, latency, response excerpt), redelivery of one and of all failed since a
time through the bus, and isolation between stores."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from webstore.admin import webhooks as panel
from webstore.errors import Invalid, NotFound
from webstore.events import DomainEvent, InProcessBus
from webstore.keys import account_pk, key, webhook_sk
from webstore.repo.audit_log import AuditLog
from webstore.repo.webhooks import EXCERPT_CHARS, MAX_SUBJECT_CHARS
from webstore.sealing import open_sealed
from webstore.services import Services
from webstore.webhooks import WebhookDispatcher
from webstore.webhooks.envelope import verify

from .conftest import Behaviour, Received, Receiver

ACCOUNT = 9
OTHER = 10
ACTOR = "staff:owner@example.com"
Factory = Callable[[Behaviour], Receiver]
NOW = datetime(2030, 5, 1, 12, 0, tzinfo=UTC)
HOSTILE = b'<script>alert("x")</script>' + b"z" * 2000

pytestmark = pytest.mark.usefixtures("allow_private")


class Switch:
    """A receiver that answers the handshake, and events with 503 (and a hostile body) while down."""

    def __init__(self) -> None:
        self.up = False
        self.accepted: list[Received] = []  # the events answered 200

    def __call__(self, receiver: Receiver, request: Received) -> tuple[int, bytes]:
        if request.body["type"] == "validation.webhook":
            return 200, json.dumps({"id": request.body["id"]}).encode()
        if not self.up:
            return 503, HOSTILE
        self.accepted.append(request)
        return 200, b"{}"


def bus_to(services: Services) -> InProcessBus:
    """The bus redelivery publishes on, handing each event to the dispatcher (as the buffer queue does)."""
    bus = InProcessBus()
    dispatcher = WebhookDispatcher(services)
    bus.subscribe(dispatcher.dispatch)
    services.publisher = bus
    return bus


def published_event(n: int = 1) -> DomainEvent:
    return DomainEvent(type="basket.authenticated", account_id=ACCOUNT, subject={"ident": f"9-{n}", "n": n})


def add_validated(services: Services, url: str) -> panel.Issued:
    issued = panel.add_endpoint(services, ACCOUNT, url, [], actor=ACTOR, now=NOW)
    assert panel.validate_endpoint(services, ACCOUNT, issued.endpoint_id)
    return issued


def test_an_added_endpoint_shows_its_secret_once_and_validates_by_the_handshake(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(Switch())
    issued = panel.add_endpoint(aws, ACCOUNT, receiver.url, ["payment.completed"], actor=ACTOR, now=NOW)
    again = panel.add_endpoint(aws, ACCOUNT, receiver.url, [], actor=ACTOR, now=NOW)

    assert (issued.endpoint_id, again.endpoint_id) == (1, 2)
    stored = aws.table.get(key(account_pk(ACCOUNT), webhook_sk(1)))
    assert stored is not None and issued.secret not in json.dumps(stored, default=str)
    [first, _] = panel.endpoints(aws, ACCOUNT)
    assert (first.url, first.events, first.validated) == (receiver.url, ["payment.completed"], False)
    assert not hasattr(first, "secret")

    assert panel.validate_endpoint(aws, ACCOUNT, 1)
    assert panel.endpoint(aws, ACCOUNT, 1).validated
    assert len(receiver.validations) == 1


def test_bad_endpoint_input_names_the_field(aws: Services) -> None:
    with pytest.raises(Invalid) as bad_url:
        panel.add_endpoint(aws, ACCOUNT, "ftp://example.com/x", [], actor=ACTOR, now=NOW)
    assert bad_url.value.field == "url"
    with pytest.raises(Invalid) as bad_type:
        panel.add_endpoint(aws, ACCOUNT, "https://example.com/x", ["payment.nope"], actor=ACTOR, now=NOW)
    assert bad_type.value.field == "events" and "payment.nope" in str(bad_type.value)
    assert panel.endpoints(aws, ACCOUNT) == []


def test_the_delivery_log_keeps_each_attempt_and_a_failed_one_is_redelivered_once(
    aws: Services, receiver_factory: Factory
) -> None:
    switch = Switch()
    receiver = receiver_factory(switch)
    other = receiver_factory(Switch())  # also down: a redelivery to the first must not retry it
    add_validated(aws, receiver.url)
    add_validated(aws, other.url)
    bus_to(aws)
    dispatcher = WebhookDispatcher(aws)
    event = published_event()
    dispatcher.dispatch(event)
    dispatcher.dispatch(event)  # the queue's retry: still down

    log = panel.endpoint_log(aws, ACCOUNT, 1)
    [failed] = log.page.deliveries
    assert (failed.event_id, failed.failed, failed.attempts) == (event.id, True, 2)
    attempts = failed.outcomes()
    assert [a.status_code for a in attempts] == [503, 503]
    assert attempts[0].excerpt.startswith('<script>alert("x")</script>')
    assert len(attempts[0].excerpt) == EXCERPT_CHARS  # bounded however much the receiver said
    assert all(a.latency_ms >= 0 for a in attempts)
    ref = panel.delivery_id(failed)
    assert panel.delivery(aws, ACCOUNT, ref).event_subject == json.dumps(event.subject, separators=(",", ":"))

    switch.up = True
    assert panel.redeliver(aws, ACCOUNT, ref, actor=ACTOR, now=NOW)
    assert not panel.redeliver(aws, ACCOUNT, ref, actor=ACTOR, now=NOW)  # delivered: nothing sent

    [got] = switch.accepted
    assert got.body["id"] == event.id and got.body["subject"] == event.subject
    assert verify(panel_secret(aws, 1), got.raw, got.headers["X-Signature"])
    assert len(receiver.events) == 3 and len(other.events) == 2  # only the queue's two tries, no redelivery
    done = panel.delivery(aws, ACCOUNT, ref)
    assert done.delivered and [a.status_code for a in done.outcomes()] == [503, 503, 200]


def panel_secret(services: Services, endpoint_id: int) -> str:
    item = services.table.get(key(account_pk(ACCOUNT), webhook_sk(endpoint_id)))
    assert item is not None
    return open_sealed(services.secrets, item["secret"])


def test_redeliver_all_failed_since_a_time_sends_those_and_only_those(
    aws: Services, receiver_factory: Factory
) -> None:
    switch = Switch()
    receiver = receiver_factory(switch)
    add_validated(aws, receiver.url)
    bus_to(aws)
    times = iter([NOW - timedelta(hours=2), NOW, NOW + timedelta(minutes=1), NOW + timedelta(minutes=2)])
    aws.clock = lambda: current["now"]
    current = {"now": NOW}
    dispatcher = WebhookDispatcher(aws)
    events = [published_event(n) for n in range(4)]
    for each in events[:3]:
        current["now"] = next(times)
        dispatcher.dispatch(each)
    switch.up = True
    current["now"] = next(times)
    dispatcher.dispatch(events[3])  # delivered at once: not failed

    sent = panel.redeliver_failed_since(aws, ACCOUNT, 1, NOW, actor=ACTOR, now=NOW)
    assert sent == 2
    assert [r.body["id"] for r in switch.accepted] == [events[3].id, events[1].id, events[2].id]
    assert panel.redeliver_failed_since(aws, ACCOUNT, 1, NOW, actor=ACTOR, now=NOW) == 0


def test_a_disabled_endpoint_receives_nothing_and_a_rotated_secret_signs_after_a_new_handshake(
    aws: Services, receiver_factory: Factory
) -> None:
    switch = Switch()
    switch.up = True
    receiver = receiver_factory(switch)
    first = add_validated(aws, receiver.url)
    dispatcher = WebhookDispatcher(aws)

    panel.set_disabled(aws, ACCOUNT, 1, True, actor=ACTOR, now=NOW)
    dispatcher.dispatch(published_event(1))
    assert receiver.events == [] and panel.endpoint(aws, ACCOUNT, 1).disabled

    with pytest.raises(Invalid) as refused:
        panel.redeliver_failed_since(aws, ACCOUNT, 1, NOW, actor=ACTOR, now=NOW)
    assert refused.value.field == "endpoint"

    panel.set_disabled(aws, ACCOUNT, 1, False, actor=ACTOR, now=NOW)
    rotated = panel.rotate_secret(aws, ACCOUNT, 1, actor=ACTOR, now=NOW)
    assert rotated.secret != first.secret and not panel.endpoint(aws, ACCOUNT, 1).validated
    WebhookDispatcher(aws).dispatch(published_event(2))
    [got] = switch.accepted
    assert verify(rotated.secret, got.raw, got.headers["X-Signature"])
    assert not verify(first.secret, got.raw, got.headers["X-Signature"])
    assert len(receiver.validations) == 2  # the new secret passed the handshake again
    entries = [(e.action, e.summary) for e in AuditLog(aws.table).page(ACCOUNT).entries]
    assert {
        ("webhook.rotate_secret", "webhook endpoint 1: secret: changed"),
        ("webhook.enable", "webhook endpoint 1: disabled: true → false"),
        ("webhook.disable", "webhook endpoint 1: disabled: false → true"),
    } <= set(entries)
    assert rotated.secret not in repr(entries)
    panel.set_disabled(aws, ACCOUNT, 1, False, actor=ACTOR, now=NOW)  # as it is: no change, no entry
    assert len(AuditLog(aws.table).page(ACCOUNT).entries) == len(entries)


def test_one_store_cannot_see_or_change_another_stores_endpoints_or_deliveries(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(Switch())
    add_validated(aws, receiver.url)
    event = published_event()
    WebhookDispatcher(aws).dispatch(event)
    ref = f"1-{event.id}"

    assert panel.endpoints(aws, OTHER) == []
    for attempt in (
        lambda: panel.endpoint_log(aws, OTHER, 1),
        lambda: panel.delivery(aws, OTHER, ref),
        lambda: panel.redeliver(aws, OTHER, ref, actor=ACTOR, now=NOW),
        lambda: panel.redeliver_failed_since(aws, OTHER, 1, NOW, actor=ACTOR, now=NOW),
        lambda: panel.set_disabled(aws, OTHER, 1, True, actor=ACTOR, now=NOW),
        lambda: panel.rotate_secret(aws, OTHER, 1, actor=ACTOR, now=NOW),
        lambda: panel.validate_endpoint(aws, OTHER, 1),
    ):
        with pytest.raises(NotFound):
            attempt()
    assert not panel.endpoint(aws, ACCOUNT, 1).disabled
    with pytest.raises(NotFound):
        panel.delivery(aws, ACCOUNT, "not-a-delivery id")


def test_an_event_too_large_to_keep_is_logged_but_not_redelivered(
    aws: Services, receiver_factory: Factory
) -> None:
    receiver = receiver_factory(Switch())
    add_validated(aws, receiver.url)
    big = DomainEvent(type="basket.authenticated", account_id=ACCOUNT, subject={"x": "y" * MAX_SUBJECT_CHARS})
    WebhookDispatcher(aws).dispatch(big)
    [delivery] = panel.endpoint_log(aws, ACCOUNT, 1).page.deliveries
    assert delivery.failed and delivery.event_subject is None
    with pytest.raises(Invalid) as refused:
        panel.redeliver(aws, ACCOUNT, panel.delivery_id(delivery), actor=ACTOR, now=NOW)
    assert refused.value.field == "delivery"


def test_the_log_pages_newest_first_with_a_cursor(aws: Services, receiver_factory: Factory) -> None:
    receiver = receiver_factory(Switch())
    add_validated(aws, receiver.url)
    current = {"now": NOW}
    aws.clock = lambda: current["now"]
    events = [published_event(n) for n in range(panel.DELIVERIES_PER_PAGE + 2)]
    for n, each in enumerate(events):
        current["now"] = NOW + timedelta(seconds=n)
        WebhookDispatcher(aws).dispatch(each)
    first = panel.endpoint_log(aws, ACCOUNT, 1)
    assert [d.event_id for d in first.page.deliveries] == [e.id for e in reversed(events)][
        : panel.DELIVERIES_PER_PAGE
    ]
    assert first.page.next_cursor is not None
    second = panel.endpoint_log(aws, ACCOUNT, 1, first.page.next_cursor)
    assert [d.event_id for d in second.page.deliveries] == [events[1].id, events[0].id]
    assert second.page.next_cursor is None
    with pytest.raises(Invalid):
        panel.endpoint_log(aws, ACCOUNT, 1, "PK#bogus")
