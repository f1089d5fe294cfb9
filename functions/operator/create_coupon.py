"""POST {plugin_url}/coupons — create a coupon (`{data: Coupon}`)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import coupons, schemas

ROUTE = Route(Interface.OPERATOR, "POST", "/coupons", "createCoupon", WRITE, "Create a coupon")


async def endpoint(
    body: schemas.CouponCreate, who: ServerDep, svc: ServicesDep
) -> schemas.Data[schemas.Coupon]:
    return schemas.Data(data=coupons.create_coupon(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
