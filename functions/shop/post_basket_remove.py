"""POST /basket/remove — remove a line from the basket (Post/Redirect/Get; CSRF-checked)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/basket/remove",
    "removeShopPackage",
    WRITE,
    "Remove a line from the basket",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    return shop_page(request, svc, lambda: forms.remove(svc, visitor(request), fields))


handler = lambda_handler(ROUTE, endpoint)
