"""Events from committed state (issue 22.3), through the real handlers under moto.

Every event-producing use case writes its event in the same DynamoDB write as the change it
describes (an outbox item), publishes nothing itself, and the table's stream (locally
webstore.local_stream) publishes it once that write succeeded. A crash between the commit and
the publish delays the event until the stream's start-up sweep; it is never lost, and its id is
the one it would have had.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import time_machine

from functions.operator import cancel_recurring_payment, update_payment
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_basket_auth import submit
from tests.integration.subscriptions.support import buy, run
from tests.support.baskets import seed_basket
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.attribute_values import deserialize
from webstore.checkout.gateway import SANDBOX_RENEWAL_DECLINED_CARD
from webstore.events import DomainEvent, InProcessBus
from webstore.local_stream import LocalStream
from webstore.repo.outbox import OutboxRepository
from webstore.services import get_services, local_bus

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)


@dataclass
class Write:
    operation: str
    items: list[dict[str, Any]]  # what it put (deserialized)
    changes: int  # its actions that are not outbox items (puts, updates, deletes, checks)

    def outbox_ids(self) -> set[str]:
        return {i["PK"].removeprefix(keys.OUTBOX_PREFIX) for i in self.items if i.get("entity") == "outbox"}


@dataclass
class Watch:
    """Every write the services' client sends, and what the handlers publish themselves."""

    writes: list[Write] = field(default_factory=list)
    direct: list[DomainEvent] = field(default_factory=list)

    def note(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        if model.name == "TransactWriteItems":
            actions = params["TransactItems"]
            items = [deserialize(a["Put"]["Item"]) for a in actions if "Put" in a]
            outbox = sum(1 for i in items if i.get("entity") == "outbox")
            self.writes.append(Write(model.name, items, len(actions) - outbox))
        elif model.name in ("PutItem", "UpdateItem", "DeleteItem"):
            items = [deserialize(params["Item"])] if model.name == "PutItem" else []
            changes = 0 if items and items[0].get("entity") == "outbox" else 1
            self.writes.append(Write(model.name, items, changes))

    def publish(self, event: DomainEvent) -> None:
        self.direct.append(event)

    def write_of(self, event: DomainEvent) -> Write:
        """The one write that carried `event`'s outbox item."""
        carrying = [w for w in self.writes if event.id in w.outbox_ids()]
        assert len(carrying) == 1, f"{event.type} written {len(carrying)} times"
        return carrying[0]


@pytest.fixture
def watch(demo: DemoStore) -> Iterator[Watch]:
    services = get_services()
    found = Watch()
    services.table.client.meta.events.register("before-parameter-build.dynamodb", found.note)
    services.publisher = found  # a handler publishing itself would land here, not on the bus
    local_bus().published.clear()
    yield found
    services.table.client.meta.events.unregister("before-parameter-build.dynamodb", found.note)
    local_bus().published.clear()


def published(*types: str) -> list[DomainEvent]:
    return [e for e in local_bus().published if not types or e.type in types]


def assert_rode_the_change(watch: Watch, *types: str) -> list[DomainEvent]:
    """Each event of `types` reached the bus once, from a write that also made a change, and
    nothing was published directly."""
    events = published(*types)
    assert sorted(e.type for e in events) == sorted(types), [e.type for e in local_bus().published]
    for event in events:
        assert watch.write_of(event).changes > 0, f"{event.type} was written alone"
    assert watch.direct == []
    return events


def test_a_paid_checkout_writes_its_events_with_the_payment(
    demo: DemoStore, invoke: Invoke, watch: Watch
) -> None:
    with time_machine.travel(START, tick=False):
        paid = buy(invoke, demo, {"package_id": 1})  # VIP: a subscription
    completed, started = assert_rode_the_change(watch, "payment.completed", "recurring-payment.started")
    write = watch.write_of(completed)
    assert write is watch.write_of(started)
    assert any(i.get("entity") == "payment" for i in write.items)
    assert completed.subject["transaction_id"] == started.subject["reference"] == paid["txn_id"]


def test_renewals_declines_and_cancellations_write_their_events_with_the_change(
    demo: DemoStore, invoke: Invoke, watch: Watch
) -> None:
    with time_machine.travel(START, tick=False):
        paid = buy(invoke, demo, {"package_id": 1})
    local_bus().published.clear()
    with time_machine.travel(RENEWAL + timedelta(minutes=1), tick=False):
        run(RENEWAL + timedelta(minutes=1))
    completed, renewed = assert_rode_the_change(watch, "payment.completed", "recurring-payment.renewed")
    assert any(i.get("entity") == "payment" for i in watch.write_of(renewed).items)

    local_bus().published.clear()
    reference = paid["txn_id"]
    with time_machine.travel(RENEWAL + timedelta(days=1), tick=False):
        answer = invoke(
            cancel_recurring_payment.handler,
            "DELETE",
            f"/recurring-payments/{reference}",
            headers=secret_headers(demo.server_secret),
        )
    assert answer.status < 300, answer.body
    (requested,) = assert_rode_the_change(watch, "recurring-payment.cancellation.requested")
    assert requested.subject["reference"] == reference

    local_bus().published.clear()
    with time_machine.travel(RENEWAL + timedelta(days=2), tick=False):
        refund = invoke(
            update_payment.handler,
            "PUT",
            f"/payments/{completed.subject['transaction_id']}",
            body={"status": "refund"},
            headers=secret_headers(demo.server_secret),
        )
    assert refund.status < 300, refund.body
    assert_rode_the_change(watch, "payment.refunded", "recurring-payment.ended")


def test_a_declined_renewal_writes_its_status_change_with_the_subscription(
    demo: DemoStore, invoke: Invoke, watch: Watch
) -> None:
    with time_machine.travel(START, tick=False):
        buy(invoke, demo, {"package_id": 1}, card=SANDBOX_RENEWAL_DECLINED_CARD)
    local_bus().published.clear()
    with time_machine.travel(RENEWAL + timedelta(minutes=1), tick=False):
        run(RENEWAL + timedelta(minutes=1))
    (changed,) = assert_rode_the_change(watch, "recurring-payment.status-changed")
    # the subscription past due, its due item done and its retry scheduled, and the event
    assert watch.write_of(changed).changes >= 3


def test_basket_authentication_writes_its_event_with_the_basket(
    demo: DemoStore, invoke: Invoke, watch: Watch
) -> None:
    ident = seed_basket(demo.table, 1).ident  # as createBasket writes it: no player yet
    local_bus().published.clear()
    answer = submit(invoke, ident, "Steve_1")
    assert answer.status in (302, 303), answer.body
    (event,) = published("basket.authenticated")
    write = watch.write_of(event)
    assert any(i.get("entity") == "basket" for i in write.items)  # the basket, bound to the player
    assert watch.direct == []


class Crash(BaseException):
    """The process dies (not an error anything handles)."""


def test_a_crash_between_the_processors_commit_and_its_publish_delays_the_event_and_loses_nothing(
    demo: DemoStore, invoke: Invoke, watch: Watch, monkeypatch: pytest.MonkeyPatch
) -> None:
    with time_machine.travel(START, tick=False):
        paid = buy(invoke, demo, {"package_id": 1})
    local_bus().published.clear()
    with monkeypatch.context() as patched, time_machine.travel(RENEWAL + timedelta(minutes=1), tick=False):
        patched.setattr(LocalStream, "publish", _crash)
        with pytest.raises(Crash):
            run(RENEWAL + timedelta(minutes=1))
    assert published() == []  # committed, never published: the process died in between
    renewal = [w for w in watch.writes if any(i.get("entity") == "payment" for i in w.items)][-1]
    written = renewal.outbox_ids()
    assert len(written) == 2

    # The restart: a new process's stream sweeps the table before serving.
    bus = InProcessBus()
    restarted = LocalStream(OutboxRepository(get_services().table), bus)
    assert restarted.sweep() >= 2
    arrived = {e.id: e for e in bus.published}
    assert written <= set(arrived)
    assert {arrived[i].type for i in written} == {"payment.completed", "recurring-payment.renewed"}
    renewed = next(arrived[i] for i in written if arrived[i].type == "recurring-payment.renewed")
    assert renewed.subject["reference"] == paid["txn_id"]

    restarted.flush()  # published: deleted, so the next start publishes nothing again
    assert written.isdisjoint(e.id for e in OutboxRepository(get_services().table).waiting())
    again = InProcessBus()
    LocalStream(OutboxRepository(get_services().table), again).sweep()
    assert written.isdisjoint(e.id for e in again.published)
    # The renewal is not made twice by the next run: it was committed before the crash.
    with time_machine.travel(RENEWAL + timedelta(minutes=2), tick=False):
        report = run(RENEWAL + timedelta(minutes=2))
    assert report.outcomes == []


def _crash(*_args: object, **_kwargs: object) -> None:
    raise Crash("killed between the commit and the publish")
