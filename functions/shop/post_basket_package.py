"""POST /basket/packages — add a package (quantity, variables, a gift); makes the basket if none."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, client_ip, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/basket/packages",
    "addShopPackage",
    WRITE,
    "Add a package to the basket (quantity, variables, a gift); a basket is made on the first",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    return shop_page(
        request, svc, lambda: forms.add_package(svc, visitor(request), fields, client_ip(request))
    )


handler = lambda_handler(ROUTE, endpoint)
