"""GET {plugin_url}/information — the account and server a secret belongs to (plugins call it first)."""

from fastapi import Depends

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import information, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/information", "getInformation", READ, "Account and server")


async def endpoint(
    who: ServerIdentity = Depends(server_identity), svc: Services = Depends(services)
) -> schemas.Information:
    return information.information(svc, who)


handler = lambda_handler(ROUTE, endpoint)
