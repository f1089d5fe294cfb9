"""GET {plugin_url}/coupons — 25 a page with SPEC's pagination envelope (cursor links)."""

from fastapi import Query

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore import keys
from webstore.operator import coupons, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/coupons", "getCoupons", READ, "Coupons, paginated")


async def endpoint(
    who: ServerDep,
    svc: ServicesDep,
    page: int = Query(1, ge=1, le=1_000_000),
    after: int | None = Query(None, ge=0, le=keys.INT32_MAX),
    before: int | None = Query(None, ge=1, le=keys.INT32_MAX),
) -> schemas.CouponList:
    return coupons.list_coupons(svc, who.account_id, page, after, before)


handler = lambda_handler(ROUTE, endpoint)
