"""PUT {plugin_url}/gift-cards/{id} — add `amount` to a gift card's balance (JSON or form)."""

from typing import Annotated

from fastapi import Path, Request

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import gift_cards, schemas
from webstore.operator.bodies import parse_body
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR, "PUT", "/gift-cards/{gift_card_id}", "topUpGiftCard", WRITE, "Top up a gift card"
)


async def endpoint(
    request: Request, who: ServerDep, svc: ServicesDep, gift_card_id: Annotated[PathRef, Path(max_length=64)]
) -> schemas.Data[schemas.GiftCardView]:
    body = parse_body(await request.body(), request.headers.get("content-type", ""), schemas.GiftCardTopUp)
    return schemas.Data(data=gift_cards.top_up_gift_card(svc, who.account_id, gift_card_id, body))


handler = lambda_handler(ROUTE, endpoint)
