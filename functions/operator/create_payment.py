"""POST {plugin_url}/payments — a manual payment; fulfilled like any other (commands queued).

An optional `Idempotency-Key` header makes a retried request return the same payment.
"""

from fastapi import Header

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import payments, schemas

ROUTE = Route(Interface.OPERATOR, "POST", "/payments", "createPayment", WRITE, "Create a manual payment")


async def endpoint(
    body: payments.ManualPayment,
    who: ServerDep,
    svc: ServicesDep,
    idempotency_key: str | None = Header(None, max_length=128),
) -> schemas.Payment:
    return payments.create_manual_payment(svc, who.account_id, body, idempotency_key)


handler = lambda_handler(ROUTE, endpoint)
