"""GET {plugin_url}/payments/fields/{package} — what a manual payment for a package must carry."""

from typing import Annotated

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/payments/fields/{package}",
    "getPaymentFields",
    READ,
    "Required payment fields",
)


async def endpoint(
    package: Annotated[PathRef, Path(max_length=20)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> list[schemas.PaymentField]:
    return payments.payment_fields(svc, who.account_id, package)


handler = lambda_handler(ROUTE, endpoint)
