"""Every route's endpoint and every dependency it declares are coroutine functions: FastAPI runs
a sync one in a worker thread (anyio's pool), which a cold start would start on its first
request, importing anyio's asyncio backend too (docs/cold-start.md, "Shop pages")."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_dependant

from functions import routes


def calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    """What FastAPI calls for a route, as it reads the endpoint: it and its dependencies, deeply."""
    if dependant.call is not None:
        yield dependant.call
    for each in dependant.dependencies:
        yield from calls(each)


@pytest.mark.parametrize("operation", routes.operations(), ids=lambda op: op.route.operation_id)
def test_the_endpoint_and_its_dependencies_are_async(operation: routes.Operation) -> None:
    dependant = get_dependant(path=operation.route.path, call=operation.endpoint)
    sync = [
        f"{c.__module__}.{c.__qualname__}" for c in calls(dependant) if not inspect.iscoroutinefunction(c)
    ]
    assert not sync, f"{operation.module}: sync, so run in a thread: {sync}"
