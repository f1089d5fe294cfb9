"""PUT {plugin_url}/payments/{transaction} — change status (complete/refund/chargeback) and/or
reassign the payment to another username."""

from typing import Annotated

from fastapi import Path
from pydantic import BaseModel, Field

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


class PaymentUpdate(BaseModel):
    status: str | None = Field(default=None, max_length=20)
    username: str | None = Field(default=None, max_length=64)


async def endpoint(
    body: PaymentUpdate,
    who: ServerDep,
    svc: ServicesDep,
    transaction: Annotated[PathRef, Path(max_length=64)],
) -> schemas.Payment:
    status = body.status.strip().lower() if body.status else None
    return payments.update_payment(svc, who.account_id, transaction, status, body.username)


handler = lambda_handler(ROUTE, endpoint)
