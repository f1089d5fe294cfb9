"""GET {plugin_url}/payments/{transaction} — one payment by transaction id."""

from typing import Annotated

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/payments/{transaction}", "getPayment", READ, "One payment")


async def endpoint(
    transaction: Annotated[PathRef, Path(max_length=64)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.Payment:
    return payments.get_payment(svc, who.account_id, transaction)


handler = lambda_handler(ROUTE, endpoint)
