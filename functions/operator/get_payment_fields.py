"""GET {plugin_url}/payments/fields/{package} — what a manual payment for a package must carry."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
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
    who: ServerDep, svc: ServicesDep, package: Annotated[PathRef, Path(max_length=20)]
) -> list[schemas.PaymentField]:
    return payments.payment_fields(svc, who.account_id, package)


handler = lambda_handler(ROUTE, endpoint)
