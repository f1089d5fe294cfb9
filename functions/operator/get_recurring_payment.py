"""GET {plugin_url}/recurring-payments/{reference} — one subscription, in the shape of the real
platform's Checkout API (`RecurringPayment`, unwrapped)."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.subscriptions import cancellation
from webstore.subscriptions.recurring_view import RecurringPaymentOut
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/recurring-payments/{reference}",
    "getRecurringPayment",
    READ,
    "One recurring payment (subscription) by its reference",
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, reference: Annotated[PathRef, Path(max_length=64)]
) -> RecurringPaymentOut:
    return cancellation.operator_view(svc, who.account_id, reference)


handler = lambda_handler(ROUTE, endpoint)
