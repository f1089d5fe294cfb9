"""PUT {plugin_url}/package/{package} — change `disabled`, `name` and/or `price`."""

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import packages, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services

ROUTE = Route(Interface.OPERATOR, "PUT", "/package/{package}", "updatePackage", WRITE, "Update a package")


async def endpoint(
    body: schemas.PackageUpdate,
    package: str = Path(max_length=20),
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.OperatorPackage:
    return packages.update_package(svc, who.account_id, package, body)


handler = lambda_handler(ROUTE, endpoint)
