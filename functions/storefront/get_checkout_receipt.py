"""GET /checkout/{basket_ident}/receipt — the paid basket's receipt, behind `links.payment`."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.checkout import checkout, pages

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/checkout/{basket_ident}/receipt",
    "getCheckoutReceipt",
    READ,
    "Receipt of a paid basket",
    html=True,
)


async def endpoint(basket_ident: str, svc: ServicesDep) -> Response:
    return render(lambda: checkout.receipt(svc, basket_ident), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
