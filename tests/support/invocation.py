"""Call an HTTP handler the way API Gateway does, under the access guard."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from functions.declarations import Access
from tests.support.access_guard import declared_access, enforced
from tests.support.lambda_events import LambdaContext, Response, api_event

Invoke = Callable[..., Response]


def invoke(
    handler: Callable[..., dict[str, Any]],
    method: str,
    path: str,
    *,
    access: frozenset[Access] | None = None,
    **kwargs: Any,
) -> Response:
    """invoke(handler, method, path, body=..., query=..., headers=...) -> Response.

    The handler runs under the access guard (tests/support/access_guard.py): a DynamoDB call or
    publish beyond its route's declared access fails the test. `access=` declares a test-only
    handler's.
    """
    declared = declared_access(handler) if access is None else ("test handler", access)
    if declared is None:
        pytest.fail(f"{handler!r} is not in the route table: pass invoke(..., access=...)")
    with enforced(*declared):
        return Response.of(handler(api_event(method, path, **kwargs), LambdaContext()))
