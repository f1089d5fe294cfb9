"""GET {plugin_url}/gift-cards/{id} — one gift card (`{data: GiftCard}`)."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import gift_cards, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/gift-cards/{gift_card_id}", "getGiftCard", READ, "A gift card")


async def endpoint(
    who: ServerDep, svc: ServicesDep, gift_card_id: Annotated[PathRef, Path(max_length=64)]
) -> schemas.Data[schemas.GiftCardView]:
    return schemas.Data(data=gift_cards.get_gift_card(svc, who.account_id, gift_card_id))


handler = lambda_handler(ROUTE, endpoint)
