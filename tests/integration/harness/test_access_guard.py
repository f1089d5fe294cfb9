"""The harness enforces declared access on every handler call (issue 9, bug 1): moto does not
enforce IAM, so this guard is what keeps a read-only route from writing in the tests."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from functions.deps import ServicesDep
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from tests.support.access_guard import AccessViolation, enforced, enforcing, table_violation
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.events import DomainEvent
from webstore.operator import auth
from webstore.operator.auth import GUARD_KEY_PREFIX
from webstore.services import get_services

OVER_REACH = Route(Interface.STOREFRONT, "POST", "/test/over-reach", "overReach", READ, "test only")


async def over_reaching_endpoint(svc: ServicesDep) -> dict[str, str]:
    """Declared READ, but writes: the bug class the guard exists for."""
    svc.table.put({"PK": "TEST#over-reach", "SK": "TEST", "entity": "test"})
    return {"ok": "yes"}


over_reaching_handler = lambda_handler(OVER_REACH, over_reaching_endpoint)


@pytest.fixture(autouse=True)
def fresh_auth_cache() -> Iterator[None]:
    auth.cache.clear()
    yield
    auth.cache.clear()


def test_a_handler_writing_beyond_its_declaration_fails_the_test(demo: DemoStore, invoke: Invoke) -> None:
    with pytest.raises(AccessViolation, match="PutItem of TEST#over-reach without table write access"):
        invoke(over_reaching_handler, "POST", "/test/over-reach", access=OVER_REACH.function_access)
    # Refused as AWS refuses it: nothing was written.
    assert demo.table.get({"PK": "TEST#over-reach", "SK": "TEST"}) is None


def test_the_same_handler_passes_when_its_declaration_allows_the_write(
    demo: DemoStore, invoke: Invoke
) -> None:
    access = frozenset({Access.TABLE_READ, Access.TABLE_WRITE})
    response = invoke(over_reaching_handler, "POST", "/test/over-reach", access=access)
    assert response.status == 200, response.body


def test_a_publish_without_bus_access_fails_the_test(demo: DemoStore) -> None:
    def consumer(event: dict[str, Any], context: Any) -> None:
        get_services().publisher.publish(DomainEvent(type="test.event", account_id=1, subject={}))

    with pytest.raises(AccessViolation, match=r"publish of test\.event without bus access"):
        enforcing(consumer, "test consumer", READ)({}, None)
    published = get_services().publisher.published  # type: ignore[attr-defined]
    assert not any(e.type == "test.event" for e in published)
    enforcing(consumer, "test consumer", READ | {Access.BUS_PUT})({}, None)
    assert any(e.type == "test.event" for e in get_services().publisher.published)  # type: ignore[attr-defined]


def test_wrong_secret_on_a_read_only_operator_route_is_403_and_counted(
    demo: DemoStore, invoke: Invoke
) -> None:
    """Bug 1: getInformation is declared READ; counting the wrong secret is a write. With the
    interface's SECRET_GUARD it is allowed (and IAM grants it by key prefix); without it (as
    before the fix) the harness refuses the write, as IAM did in AWS with a 500."""
    from functions.operator import get_information

    assert get_information.ROUTE.access == READ
    throttle = keys.throttle_key(auth.GUARD_SCOPE, "203.0.113.10")
    for attempt in (1, 2):
        response = invoke(get_information.handler, "GET", "/information", headers={"X-Tebex-Secret": "wrong"})
        assert response.status == 403, response.body
        mark = demo.table.get(throttle)
        assert mark is not None and int(mark["failures"]) == attempt

    auth.cache.clear()
    with pytest.raises(AccessViolation, match=f"UpdateItem of {GUARD_KEY_PREFIX}"):
        invoke(
            get_information.handler,
            "GET",
            "/information",
            headers={"X-Tebex-Secret": "wrong"},
            access=get_information.ROUTE.access,  # the route's own access alone: before the fix
        )


def test_the_guard_writes_only_its_own_keys() -> None:
    guard = frozenset({Access.TABLE_READ, Access.SECRET_GUARD})
    counter = {"Key": {"PK": {"S": f"{GUARD_KEY_PREFIX}203.0.113.10"}, "SK": {"S": "THROTTLE"}}}
    other = {"Key": {"PK": {"S": "ACCOUNT#1"}, "SK": {"S": "STORE"}}}
    assert table_violation("UpdateItem", counter, guard) is None
    assert table_violation("PutItem", {"Item": counter["Key"]}, guard) is None
    assert table_violation("UpdateItem", other, guard) is not None
    assert table_violation("DeleteItem", counter, guard) is not None
    assert table_violation("TransactWriteItems", {"TransactItems": [{"Put": {}}]}, guard) is not None
    assert table_violation("TransactWriteItems", {"TransactItems": [{"ConditionCheck": {}}]}, guard) is None
    assert table_violation("Scan", {}, frozenset(Access)) is not None
    assert table_violation("GetItem", {}, frozenset({Access.BUS_PUT})) is not None


def test_calls_outside_a_handler_are_not_checked(demo: DemoStore) -> None:
    with enforced("reader", READ):
        assert get_services().table.get({"PK": "none", "SK": "none"}) is None
    get_services().table.put({"PK": "TEST#setup", "SK": "TEST", "entity": "test"})  # test setup
