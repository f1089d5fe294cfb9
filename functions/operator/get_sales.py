"""GET {plugin_url}/sales — the active sales (`{data: [Sale]}`)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import sales, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/sales", "getSales", READ, "Active sales")


async def endpoint(who: ServerDep, svc: ServicesDep) -> schemas.DataList[schemas.Sale]:
    return schemas.DataList(data=sales.active_sales_of(svc, who.account_id))


handler = lambda_handler(ROUTE, endpoint)
