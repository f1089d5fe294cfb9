"""GET {plugin_url}/packages — every package (`?verbose=true` adds descriptions)."""

from fastapi import Depends, Query

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import packages, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/packages", "getPackages", READ, "Packages")


async def endpoint(
    verbose: bool = Query(False),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> list[schemas.VerbosePackage | schemas.OperatorPackage]:
    return list(packages.list_packages(svc, who.account_id, verbose))


handler = lambda_handler(ROUTE, endpoint)
