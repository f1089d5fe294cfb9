"""PUT {plugin_url}/payments/{transaction} — change status (complete/refund/chargeback) and/or
reassign the payment to another username."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "PUT",
    "/payments/{transaction}",
    "updatePayment",
    WRITE | {Access.GATEWAY_KEY},  # a Stripe payment is refunded through Stripe
    "Update a payment",
)


async def endpoint(
    body: schemas.PaymentUpdate,
    who: ServerDep,
    svc: ServicesDep,
    transaction: Annotated[PathRef, Path(max_length=64)],
) -> schemas.Payment:
    return payments.update_payment(svc, who.account_id, transaction, body.status, body.username)


handler = lambda_handler(ROUTE, endpoint)
