"""GET {plugin_url}/bans — the latest bans (`{data: [Ban]}`)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import bans, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/bans", "getBans", READ, "Bans")


async def endpoint(who: ServerDep, svc: ServicesDep) -> schemas.DataList[schemas.Ban]:
    return schemas.DataList(data=bans.list_bans(svc, who.account_id))


handler = lambda_handler(ROUTE, endpoint)
