"""POST {headless_url}/baskets/{basketIdent}/giftcards/remove (also token-less under /api/baskets, COMPAT)."""

from fastapi import Path

from functions.deps import BASKET_PREFIX, TOKEN_PREFIX, PathTokenDep, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import baskets, schemas
from webstore.storefront.retrying import retry_contended

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/giftcards/remove",
    "removeGiftCard",
    WRITE,
    "Gift card removed successfully",
    aliases=(f"{BASKET_PREFIX}/giftcards/remove",),
)


async def endpoint(
    body: baskets.GiftCardNumber,
    token: PathTokenDep,
    svc: ServicesDep,
    basket_ident: str = Path(max_length=80),
) -> schemas.Success:
    retry_contended(lambda: baskets.remove_giftcard(svc, token, basket_ident, body.card_number))
    return schemas.Success(success=True, message="Gift card removed successfully")


handler = lambda_handler(ROUTE, endpoint)
