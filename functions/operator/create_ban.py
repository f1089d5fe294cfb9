"""POST {plugin_url}/bans — ban a player by username or UUID, optionally an IP (`{data: Ban}`)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import bans, schemas

ROUTE = Route(Interface.OPERATOR, "POST", "/bans", "createBan", WRITE, "Create a ban")


async def endpoint(body: schemas.BanCreate, who: ServerDep, svc: ServicesDep) -> schemas.Data[schemas.Ban]:
    return schemas.Data(data=bans.create_ban(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
