"""POST {plugin_url}/coupons — create a coupon (`{data: Coupon}`); JSON, or form from BuycraftX."""

from fastapi import Request

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import coupons, schemas
from webstore.operator.bodies import parse_body

ROUTE = Route(Interface.OPERATOR, "POST", "/coupons", "createCoupon", WRITE, "Create a coupon")


async def endpoint(request: Request, who: ServerDep, svc: ServicesDep) -> schemas.Data[schemas.Coupon]:
    body = parse_body(await request.body(), request.headers.get("content-type", ""), schemas.CouponCreate)
    return schemas.Data(data=coupons.create_coupon(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
