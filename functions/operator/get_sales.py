"""GET {plugin_url}/sales — the active sales (`{data: [Sale]}`)."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import sales, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/sales", "getSales", READ, "Active sales")


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> schemas.DataList[schemas.Sale]:
    return schemas.DataList(data=sales.active_sales_of(svc, who.account_id))


handler = lambda_handler(ROUTE, endpoint)
