"""GET {plugin_url}/bans — the latest bans (`{data: [Ban]}`)."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import bans, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/bans", "getBans", READ, "Bans")


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> schemas.DataList[schemas.Ban]:
    return schemas.DataList(data=bans.list_bans(svc, who.account_id))


handler = lambda_handler(ROUTE, endpoint)
