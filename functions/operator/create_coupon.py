"""POST {plugin_url}/coupons — create a coupon (`{data: Coupon}`)."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import coupons, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "POST", "/coupons", "createCoupon", WRITE, "Create a coupon")


async def endpoint(
    body: schemas.CouponCreate,
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.Data[schemas.Coupon]:
    return schemas.Data(data=coupons.create_coupon(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
