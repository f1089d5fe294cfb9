"""The test harness's access guard: a handler may touch only what its route table line declares.

moto does not enforce IAM, so a handler that writes on a read-only route passes every test and
then fails in AWS (issue 9, bug 1). While a handler runs under `enforced(...)`, every DynamoDB
call of the services' client (a botocore `before-parameter-build` hook) and every publish
(a wrapper around the publisher port) is checked against the declared access, the way the CDK
stack grants it (infra/aws/functions.py). A call beyond it is refused as AWS would refuse it
(AccessDeniedException) and fails the test, even when the handler turns the refusal into a 500.
"""

from __future__ import annotations

import contextvars
import importlib
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from botocore.exceptions import ClientError

from functions.declarations import Access, Interface
from functions.routes import consumers, operations, unmatched_access
from webstore.events import DomainEvent, Publisher
from webstore.failure_guard import GUARD_KEY_PREFIXES
from webstore.services import get_services

# What each DynamoDB operation needs, as IAM authorizes it (TransactWriteItems: by its actions).
READS = frozenset({"GetItem", "BatchGetItem", "Query", "TransactGetItems"})
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem"})
GUARD_WRITES = frozenset({"PutItem", "UpdateItem"})
HOOK_ID = "webstore-access-guard"


class AccessViolation(AssertionError):
    """Raised in the test when a handler went beyond its declaration (reported by `enforced`)."""


@dataclass
class Invocation:
    """One handler call under the guard: what it may touch, and what it tried beyond that."""

    name: str
    access: frozenset[Access]
    violations: list[str] = field(default_factory=list)

    def refuse(self, problem: str) -> None:
        self.violations.append(problem)

    def failure(self) -> AccessViolation:
        declared = ", ".join(sorted(self.access)) or "nothing"
        return AccessViolation(
            f"{self.name} went beyond its declared access ({declared}): " + "; ".join(self.violations)
        )


_current: contextvars.ContextVar[Invocation | None] = contextvars.ContextVar("access_guard", default=None)


def _partition_key(operation: str, params: dict[str, Any]) -> str:
    item = params.get("Item") if operation == "PutItem" else params.get("Key")
    value = (item or {}).get("PK", {})
    return str(value.get("S", "")) if isinstance(value, dict) else ""


def table_violation(operation: str, params: dict[str, Any], access: frozenset[Access]) -> str | None:
    """Why a function with `access` may not make this DynamoDB call; None when it may."""
    may_read = bool(access & {Access.TABLE_READ, Access.TABLE_WRITE})
    may_write = Access.TABLE_WRITE in access
    if operation in READS:
        return None if may_read else f"{operation} without table read access"
    if operation == "TransactWriteItems":
        kinds = {kind for action in params.get("TransactItems", []) for kind in action}
        if kinds - {"ConditionCheck"} and not may_write:
            return f"TransactWriteItems ({', '.join(sorted(kinds))}) without table write access"
        if "ConditionCheck" in kinds and not may_read:
            return "TransactWriteItems (ConditionCheck) without table read access"
        return None
    if operation in WRITES:
        if may_write:
            return None
        key = _partition_key(operation, params)
        if operation in GUARD_WRITES and Access.SECRET_GUARD in access and key.startswith(GUARD_KEY_PREFIXES):
            return None
        return f"{operation} of {key or 'an item'} without table write access"
    return f"{operation} is granted to no function"


def _check_table_call(params: dict[str, Any], event_name: str, **_: Any) -> None:
    invocation = _current.get()
    if invocation is None:  # test setup and assertions are not a handler
        return
    operation = event_name.rsplit(".", 1)[-1]
    problem = table_violation(operation, params, invocation.access)
    if problem is not None:
        invocation.refuse(problem)
        raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": problem}}, operation)


class GuardedPublisher:
    """The publisher port under the guard: a publish needs BUS_PUT. The bus is a boundary: what
    its local subscribers do is not the publishing handler's doing."""

    def __init__(self, inner: Publisher) -> None:
        self.inner = inner

    def publish(self, event: DomainEvent) -> None:
        invocation = _current.get()
        if invocation is not None and Access.BUS_PUT not in invocation.access:
            problem = f"publish of {event.type} without bus access"
            invocation.refuse(problem)
            raise ClientError({"Error": {"Code": "AccessDeniedException", "Message": problem}}, "PutEvents")
        token = _current.set(None)
        try:
            self.inner.publish(event)
        finally:
            _current.reset(token)

    def __getattr__(self, name: str) -> Any:  # tests read the recording bus's `published`
        return getattr(self.inner, name)


class GuardedSecretBox:
    """The sealing key under the guard: opening a sealed secret (a webhook signing secret, a
    store's Stripe keys) needs the key's access, as the stack grants Secrets Manager reads."""

    KEY_ACCESS = frozenset({Access.WEBHOOK_KEY, Access.GATEWAY_KEY, Access.PANEL_KEY})

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def open(self, sealed: str) -> str:
        invocation = _current.get()
        if invocation is not None and not invocation.access & self.KEY_ACCESS:
            problem = "opened a sealed secret without the sealing key's access"
            invocation.refuse(problem)
            raise ClientError(
                {"Error": {"Code": "AccessDeniedException", "Message": problem}}, "GetSecretValue"
            )
        return str(self.inner.open(sealed))

    def mac(self, purpose: str, message: str) -> bytes:
        """A MAC is made with the key too (signed links, the panel's session cookies)."""
        invocation = _current.get()
        if invocation is not None and not invocation.access & self.KEY_ACCESS:
            problem = f"made a {purpose} MAC without the sealing key's access"
            invocation.refuse(problem)
            raise ClientError(
                {"Error": {"Code": "AccessDeniedException", "Message": problem}}, "GetSecretValue"
            )
        return bytes(self.inner.mac(purpose, message))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@contextmanager
def enforced(name: str, access: frozenset[Access]) -> Iterator[Invocation]:
    """Run a handler under the guard; fails the test if it went beyond `access`."""
    services = get_services()
    services.table.client.meta.events.register(
        "before-parameter-build.dynamodb", _check_table_call, unique_id=HOOK_ID
    )
    if not isinstance(services.publisher, GuardedPublisher):
        services.publisher = GuardedPublisher(services.publisher)
    if not isinstance(services.secrets, GuardedSecretBox):
        services.secrets = GuardedSecretBox(services.secrets)  # type: ignore[assignment]
    invocation = Invocation(name, frozenset(access))
    token = _current.set(invocation)
    try:
        yield invocation
    except Exception as error:
        if invocation.violations:  # the refusal itself, not handled by the handler
            raise invocation.failure() from error
        raise
    finally:
        _current.reset(token)
    if invocation.violations:
        raise invocation.failure()


def declared_access(handler: Callable[..., Any]) -> tuple[str, frozenset[Access]] | None:
    """(name, access) of a handler of the route table, its consumers or `$default`; None if unknown."""
    for op in operations():
        if importlib.import_module(op.module).handler is handler:
            return op.route.operation_id, op.route.function_access
    for each in consumers():
        if importlib.import_module(each.module).handler is handler:
            return each.consumer.name, each.consumer.function_access
    unmatched = importlib.import_module("functions.unmatched")
    for interface in Interface:
        if getattr(unmatched, f"{interface.value}_handler") is handler:
            return f"{interface.value} $default", unmatched_access(interface)
    return None


Handler = TypeVar("Handler", bound=Callable[..., Any])


def enforcing(handler: Handler, name: str, access: frozenset[Access]) -> Handler:
    """`handler`, called under the guard (the event consumers' handlers in every test)."""

    def guarded(*args: Any, **kwargs: Any) -> Any:
        with enforced(name, access):
            return handler(*args, **kwargs)

    return guarded  # type: ignore[return-value]


class ContextExecutor(Executor):
    """An executor that runs each task in the submitter's context, so reads issued beside the
    main one (`webstore.db.start_read`) are checked against the same invocation."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return self.inner.submit(contextvars.copy_context().run, fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait, cancel_futures=cancel_futures)
