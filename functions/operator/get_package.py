"""GET {plugin_url}/package/{package} — one package."""

from typing import Annotated

from fastapi import Depends, Path, Query

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import admin, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/package/{package}", "getPackage", READ, "One package")


async def endpoint(
    package: Annotated[PathRef, Path(max_length=20)],
    verbose: bool = Query(False),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.VerbosePackage | schemas.OperatorPackage:
    return admin.get_package(svc, who.account_id, package, verbose)


handler = lambda_handler(ROUTE, endpoint)
