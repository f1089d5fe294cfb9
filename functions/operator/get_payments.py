"""GET {plugin_url}/payments — latest first (`limit` <= 100), or pages of 25: `paged=1&page=N`,
or `paged=N` alone as the C# SDK sends it (its value is the page)."""

from fastapi import Query

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import payments, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/payments", "getPayments", READ, "Payments, latest first")


async def endpoint(
    who: ServerDep,
    svc: ServicesDep,
    limit: int = Query(payments.MAX_LIMIT, ge=1, le=1_000_000),
    paged: int = Query(0, ge=0, le=100_000_000),
    page: int | None = Query(None, ge=1, le=100_000_000),
) -> list[schemas.Payment] | schemas.PaymentPage:
    if paged:
        return payments.payment_page(svc, who.account_id, page if page is not None else paged)
    return payments.latest_payments(svc, who.account_id, limit)


handler = lambda_handler(ROUTE, endpoint)
