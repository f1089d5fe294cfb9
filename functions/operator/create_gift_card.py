"""POST {plugin_url}/gift-cards — create a gift card `{amount, note, expires_at}` (JSON or form)."""

from fastapi import Request

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import gift_cards, schemas
from webstore.operator.bodies import parse_body

ROUTE = Route(Interface.OPERATOR, "POST", "/gift-cards", "createGiftCard", WRITE, "Create a gift card")


async def endpoint(request: Request, who: ServerDep, svc: ServicesDep) -> schemas.Data[schemas.GiftCardView]:
    body = parse_body(await request.body(), request.headers.get("content-type", ""), schemas.GiftCardCreate)
    return schemas.Data(data=gift_cards.create_gift_card(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
