"""POST /checkout — to the hosted checkout of the basket (Post/Redirect/Get; CSRF-checked)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/checkout",
    "startShopCheckout",
    READ,
    "To the hosted checkout of the basket",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    del fields  # the CSRF token only
    return shop_page(request, svc, lambda: forms.check_out(svc, visitor(request)))


handler = lambda_handler(ROUTE, endpoint)
