"""GET {plugin_url}/coupons/{id} — one coupon (`{data: Coupon}`)."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import coupons, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/coupons/{coupon_id}", "getCoupon", READ, "One coupon")


async def endpoint(
    who: ServerDep, svc: ServicesDep, coupon_id: Annotated[PathRef, Path(max_length=64)]
) -> schemas.Data[schemas.Coupon]:
    return schemas.Data(data=coupons.get_coupon(svc, who.account_id, coupon_id))


handler = lambda_handler(ROUTE, endpoint)
