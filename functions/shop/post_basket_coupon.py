"""POST /basket/coupons — apply a coupon (or remove it: `action=remove`) (Post/Redirect/Get; CSRF-checked)."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import WRITE, Interface, Route, lambda_handler
from functions.shop_deps import FormDep, ServicesDep, shop_page, visitor
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "POST",
    "/basket/coupons",
    "applyShopCoupon",
    WRITE,
    "Apply a coupon (or remove it: `action=remove`)",
    html=True,
)


async def endpoint(request: Request, fields: FormDep, svc: ServicesDep) -> Response:
    return shop_page(request, svc, lambda: forms.coupon(svc, visitor(request), fields))


handler = lambda_handler(ROUTE, endpoint)
