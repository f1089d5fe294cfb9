"""GET {plugin_url}/gift-cards/lookup/{code} — one gift card by its number (`{data: GiftCard}`)."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import gift_cards, schemas
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "GET",
    "/gift-cards/lookup/{code}",
    "lookupGiftCard",
    READ,
    "A gift card by its number",
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, code: Annotated[PathRef, Path(max_length=64)]
) -> schemas.Data[schemas.GiftCardView]:
    return schemas.Data(data=gift_cards.lookup_gift_card(svc, who.account_id, code))


handler = lambda_handler(ROUTE, endpoint)
