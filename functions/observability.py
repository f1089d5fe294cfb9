"""Powertools around every function: one logger, tracer and metrics, and the handler wrappers.

Free of FastAPI and Mangum: the event consumers use it, and a function that is not HTTP should
not import the HTTP runtime (tests/unit/test_function_imports.py holds it to that).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Logger, Metrics, Tracer

from functions.cold_start import end_of_init
from webstore.settings import check_at_cold_start

logger = Logger()
tracer = Tracer()
metrics = Metrics()
# Most requests publish no metric (the cold-start one aside): not worth a warning in the logs.
warnings.filterwarnings("ignore", "No application metrics to publish", UserWarning)

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]
Result = TypeVar("Result")


def powertools_handler(adapter: Callable[[], LambdaHandler], operation: str) -> LambdaHandler:
    """Logger context, tracing and the cold-start metric around an adapter (made on first use:
    the unmatched-route functions build their whole app only then). No metric per request:
    Lambda counts invocations, and an EMF line per request is log volume paid on every one."""
    check_at_cold_start()

    @metrics.log_metrics(capture_cold_start_metric=True, raise_on_empty_metrics=False)
    @logger.inject_lambda_context(clear_state=True)
    @tracer.capture_lambda_handler(capture_response=False)
    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        end_of_init()
        logger.append_keys(operation=operation)
        return adapter()(event, context)

    return handler


def consumer_handler(
    handle: Callable[[dict[str, Any], Any], Result],
) -> Callable[[dict[str, Any], Any], Result]:
    """An event consumer's entry point: logger context, tracing, metrics flushed per batch."""
    check_at_cold_start()
    wrapped: Callable[[dict[str, Any], Any], Result] = metrics.log_metrics(raise_on_empty_metrics=False)(
        logger.inject_lambda_context(clear_state=True)(
            tracer.capture_lambda_handler(capture_response=False)(handle)
        )
    )

    @functools.wraps(wrapped)
    def consumer(event: dict[str, Any], context: Any) -> Result:
        end_of_init()
        return wrapped(event, context)

    return consumer
