"""The pay sequence's shape at the table: one read round, the claim before the charge, one commit
after it (docs/checkout.md "Round trips"). Counted from the DynamoDB client's own calls, so a
read or write added on the paying path fails here, not only in the benchmark."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from functions.storefront import get_checkout_page
from tests.integration.storefront.test_checkout import attempt_key_of, basket_json, new_basket, pay
from tests.integration.storefront.test_pay_faults import RecordingGateway
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.checkout import checkout
from webstore.services import get_services


class Calls:
    """The DynamoDB operations made, in order, and where the charge fell among them."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self.at_charge: int | None = None

    def record(self, event_name: str, **_: Any) -> None:
        self.names.append(event_name.rsplit(".", 1)[-1])

    @property
    def before_charge(self) -> list[str]:
        assert self.at_charge is not None
        return self.names[: self.at_charge]

    @property
    def after_charge(self) -> list[str]:
        assert self.at_charge is not None
        return self.names[self.at_charge :]


@pytest.fixture
def calls(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[Calls]:
    found = Calls()
    books = RecordingGateway()
    original = books.charge

    def charge(request: Any) -> Any:
        found.at_charge = len(found.names)
        return original(request)

    monkeypatch.setattr(books, "charge", charge)
    monkeypatch.setattr(checkout, "gateway_for", lambda services, store: books)
    events = get_services().table.client.meta.events
    events.register("before-call.dynamodb", found.record)
    yield found
    events.unregister("before-call.dynamodb", found.record)


def test_pay_reads_once_claims_before_the_charge_and_commits_once_after_it(
    demo: DemoStore, invoke: Invoke, calls: Calls
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    calls.names.clear()
    assert pay(invoke, ident, key).status == 303
    # Before the charge: the reads and the claim, nothing else written.
    assert calls.before_charge.count("TransactWriteItems") == 1
    assert all(name in ("BatchGetItem", "Query", "TransactWriteItems") for name in calls.before_charge)
    # After it: one transaction records the payment and completes the basket; nothing read again.
    assert calls.after_charge == ["TransactWriteItems"]
    assert basket_json(invoke, demo, ident)["complete"] is True


def test_a_resubmit_of_the_paid_form_charges_nothing_and_writes_nothing(
    demo: DemoStore, invoke: Invoke, calls: Calls
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    assert pay(invoke, ident, key).status == 303
    calls.names.clear()
    calls.at_charge = None
    assert pay(invoke, ident, key).status == 303
    assert calls.at_charge is None  # never charged again
    # The read and the payment; the catalog Query issued beside the first read runs on another
    # thread and may not have started by the time the paid answer is given.
    assert sorted(n for n in calls.names if n != "Query") == ["BatchGetItem", "GetItem"]
    assert calls.names.count("Query") <= 1
