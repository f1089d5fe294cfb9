"""POST {plugin_url}/bans — ban a player by username or UUID, optionally an IP (`{data: Ban}`)."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import bans, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "POST", "/bans", "createBan", WRITE, "Create a ban")


async def endpoint(
    body: schemas.BanCreate,
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.Data[schemas.Ban]:
    return schemas.Data(data=bans.create_ban(svc, who.account_id, body))


handler = lambda_handler(ROUTE, endpoint)
