"""POST {plugin_url}/payments/{transaction}/note — add a note to a payment."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "POST",
    "/payments/{transaction}/note",
    "createPaymentNote",
    WRITE,
    "Add a payment note",
)


async def endpoint(
    body: schemas.PaymentNoteCreate,
    who: ServerDep,
    svc: ServicesDep,
    transaction: Annotated[PathRef, Path(max_length=64)],
) -> schemas.Payment:
    return payments.add_note(svc, who.account_id, transaction, body.note)


handler = lambda_handler(ROUTE, endpoint)
