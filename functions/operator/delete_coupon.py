"""DELETE {plugin_url}/coupons/{id} — delete a coupon; 204."""

from typing import Annotated

from fastapi import Depends, Path, Response

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import admin
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(
    Interface.OPERATOR,
    "DELETE",
    "/coupons/{coupon_id}",
    "deleteCoupon",
    WRITE,
    "Delete a coupon",
    status_code=204,
)


async def endpoint(
    coupon_id: Annotated[PathRef, Path(max_length=64)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> Response:
    admin.delete_coupon(svc, who.account_id, coupon_id)
    return Response(status_code=204)


handler = lambda_handler(ROUTE, endpoint)
