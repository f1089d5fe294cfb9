"""POST {plugin_url}/payments/{transaction}/note — add a note to a payment."""

from typing import Annotated

from fastapi import Depends, Path
from pydantic import BaseModel, Field

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import payments, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "POST",
    "/payments/{transaction}/note",
    "createPaymentNote",
    WRITE,
    "Add a payment note",
)


class NoteBody(BaseModel):
    note: str = Field(min_length=1, max_length=1000)


async def endpoint(
    body: NoteBody,
    transaction: Annotated[PathRef, Path(max_length=64)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.Payment:
    return payments.add_note(svc, who.account_id, transaction, body.note)


handler = lambda_handler(ROUTE, endpoint)
