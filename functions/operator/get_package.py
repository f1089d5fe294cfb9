"""GET {plugin_url}/package/{package} — one package."""

from fastapi import Depends, Path, Query

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import packages, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "GET", "/package/{package}", "getPackage", READ, "One package")


async def endpoint(
    package: str = Path(max_length=20),
    verbose: bool = Query(False),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.VerbosePackage | schemas.OperatorPackage:
    return packages.get_package(svc, who.account_id, package, verbose)


handler = lambda_handler(ROUTE, endpoint)
