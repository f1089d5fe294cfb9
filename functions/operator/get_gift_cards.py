"""GET {plugin_url}/gift-cards — every gift card (`{data: [GiftCard]}`)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import gift_cards, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/gift-cards", "getGiftCards", READ, "Gift cards")


async def endpoint(who: ServerDep, svc: ServicesDep) -> schemas.DataList[schemas.GiftCardView]:
    return schemas.DataList(data=gift_cards.list_gift_cards(svc, who.account_id))


handler = lambda_handler(ROUTE, endpoint)
