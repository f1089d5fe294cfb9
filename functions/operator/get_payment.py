"""GET {plugin_url}/payments/{transaction} — one payment by transaction id."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/payments/{transaction}", "getPayment", READ, "One payment")


async def endpoint(
    who: ServerDep, svc: ServicesDep, transaction: Annotated[PathRef, Path(max_length=64)]
) -> schemas.Payment:
    return payments.get_payment(svc, who.account_id, transaction)


handler = lambda_handler(ROUTE, endpoint)
