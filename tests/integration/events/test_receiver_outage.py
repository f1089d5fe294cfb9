"""Issue 10.7, end to end on the local stack's delivery worker: a receiver that is down for ten
minutes of simulated time (including its validation handshake) loses nothing, and every event
it finally gets carries a signature that verifies. Time travels with time-machine: the worker's
due times (`clock=time.time`) and the services clock (leases, history) both follow it."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime

import pytest
import time_machine

from webstore.events import DomainEvent
from webstore.services import Services
from webstore.webhooks import WebhookDispatcher
from webstore.webhooks.envelope import verify
from webstore.webhooks.local import LocalDispatcher

from .conftest import SECRET, Received, Receiver, add_endpoint, attempt_history

ACCOUNT = 9
pytestmark = pytest.mark.usefixtures("allow_private")


def test_a_receiver_down_for_ten_minutes_then_up_gets_every_event(
    aws: Services, receiver_factory: object
) -> None:
    up = {"now": False}

    def behave(receiver: Receiver, request: Received) -> tuple[int, bytes]:
        if not up["now"]:
            return 503, b"down for maintenance"
        if request.body["type"] == "validation.webhook":
            return 200, json.dumps({"id": request.body["id"]}).encode()
        return 200, b"{}"

    receiver = receiver_factory(behave)  # type: ignore[operator]
    add_endpoint(aws, ACCOUNT, 1, receiver.url)  # not validated yet, as after an import
    published: list[DomainEvent] = []

    with time_machine.travel(datetime(2030, 5, 1, 12, 0, tzinfo=UTC), tick=False) as traveller:
        worker = LocalDispatcher(WebhookDispatcher(aws), clock=time.time)
        for minute in range(0, 10 * 60, 10):  # ten minutes, in steps of 10 s
            if minute % 120 == 0:  # an event every two minutes while the receiver is down
                event = DomainEvent(type="basket.authenticated", account_id=ACCOUNT, subject={"n": minute})
                published.append(event)
                worker.submit(event)
            worker.run_due()
            traveller.shift(10)
        assert receiver.events == [] and len(published) == 5
        up["now"] = True
        for _ in range(6 * 60 * 3):  # up to three hours, in steps of 10 s
            worker.run_due()
            if not worker.pending():
                break
            traveller.shift(10)

    assert worker.pending() == 0
    delivered = [r.body["id"] for r in receiver.events]
    assert sorted(delivered) == sorted(e.id for e in published)  # every event, once
    assert all(verify(SECRET, r.raw, r.headers["X-Signature"]) for r in receiver.requests)
    history = attempt_history(aws, ACCOUNT, limit=200)
    failed_handshakes = [a for a in history if a.event_type == "validation.webhook" and not a.success]
    assert failed_handshakes  # the outage is in the attempt history
