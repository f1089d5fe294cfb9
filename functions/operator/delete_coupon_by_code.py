"""DELETE {plugin_url}/coupons/{code}/code — delete a coupon by its code (the legacy plugin's
`/buycraft coupon delete <code>`); 204."""

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
    "/coupons/{code}/code",
    "deleteCouponByCode",
    WRITE,
    "Delete a coupon by code",
    status_code=204,
)


async def endpoint(
    who: ServerDep, svc: ServicesDep, code: Annotated[PathRef, Path(max_length=64)]
) -> Response:
    coupons.delete_coupon_by_code(svc, who.account_id, code)
    return Response(status_code=204)


handler = lambda_handler(ROUTE, endpoint)
