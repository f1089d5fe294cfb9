"""GET /gift-card?code=… — a gift card's remaining balance and expiry (the sidebar's form)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import Access, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, VisitorDep, shop_page
from webstore.shop import giftcard

# Reads the card; writes only the guard's counters (the look-ups per address).
ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/gift-card",
    "getShopGiftCardBalance",
    frozenset({Access.TABLE_READ, Access.SECRET_GUARD}),
    "A gift card's remaining balance and expiry (unknown, void and expired cards alike refused)",
    html=True,
)


async def endpoint(request: Request, svc: ServicesDep, who: VisitorDep, code: str = "") -> Response:
    return shop_page(request, svc, lambda: giftcard.balance(svc, who, code, svc.now()))


handler = lambda_handler(ROUTE, endpoint)
