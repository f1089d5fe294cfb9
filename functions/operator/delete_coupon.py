"""DELETE {plugin_url}/coupons/{id} — delete a coupon; 204."""

from typing import Annotated

from fastapi import Path, Response

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import coupons
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
    who: ServerDep, svc: ServicesDep, coupon_id: Annotated[PathRef, Path(max_length=64)]
) -> Response:
    coupons.delete_coupon(svc, who.account_id, coupon_id)
    return Response(status_code=204)


handler = lambda_handler(ROUTE, endpoint)
