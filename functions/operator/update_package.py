"""PUT {plugin_url}/package/{package} — change `disabled`, `name` and/or `price`."""

from typing import Annotated

from fastapi import Depends, Path

from functions.deps import services
from functions.operator_deps import server_identity
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import admin, schemas
from webstore.operator.auth import ServerIdentity
from webstore.services import Services
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "PUT", "/package/{package}", "updatePackage", WRITE, "Update a package")


async def endpoint(
    body: admin.PackageUpdate,
    package: Annotated[PathRef, Path(max_length=20)],
    who: ServerIdentity = Depends(server_identity),
    svc: Services = Depends(services),
) -> schemas.OperatorPackage:
    return admin.update_package(svc, who.account_id, package, body)


handler = lambda_handler(ROUTE, endpoint)
