"""DELETE {plugin_url}/recurring-payments/{reference} — cancel a subscription at the end of its
paid period (as the real platform's Checkout API: 200 with the `RecurringPayment`)."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.subscriptions import cancellation
from webstore.subscriptions.recurring_view import RecurringPaymentOut
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "DELETE",
    "/recurring-payments/{reference}",
    "cancelRecurringPayment",
    WRITE,
    "Cancel a recurring payment at the end of its paid period",
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, reference: Annotated[PathRef, Path(max_length=64)]
) -> RecurringPaymentOut:
    return cancellation.operator_cancel(svc, who.account_id, reference)


handler = lambda_handler(ROUTE, endpoint)
