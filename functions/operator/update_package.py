"""PUT {plugin_url}/package/{package} — change `disabled`, `name` and/or `price`."""

from typing import Annotated

from fastapi import Path

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import packages, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "PUT", "/package/{package}", "updatePackage", WRITE, "Update a package")


async def endpoint(
    body: schemas.PackageUpdate,
    who: ServerDep,
    svc: ServicesDep,
    package: Annotated[PathRef, Path(max_length=20)],
) -> schemas.OperatorPackage:
    return packages.update_package(svc, who.account_id, package, body)


handler = lambda_handler(ROUTE, endpoint)
