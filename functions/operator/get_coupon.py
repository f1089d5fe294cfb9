"""GET {plugin_url}/coupons/{id} — one coupon (`{data: Coupon}`)."""

from typing import Annotated

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import admin, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/coupons/{coupon_id}", "getCoupon", READ, "One coupon")


async def endpoint(
    coupon_id: Annotated[PathRef, Path(max_length=64)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.Data[schemas.Coupon]:
    return schemas.Data(data=admin.coupon_view(admin.coupon_by_ref(svc, who.account_id, coupon_id)))


handler = lambda_handler(ROUTE, endpoint)
