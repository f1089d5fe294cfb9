"""GET {plugin_url}/package/{package} — one package."""

from typing import Annotated

from fastapi import Path, Query

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import packages, schemas
from webstore.validation import PathRef

ROUTE = Route(Interface.OPERATOR, "GET", "/package/{package}", "getPackage", READ, "One package")


async def endpoint(
    who: ServerDep,
    svc: ServicesDep,
    package: Annotated[PathRef, Path(max_length=20)],
    verbose: bool = Query(False),
) -> schemas.VerbosePackage | schemas.OperatorPackage:
    return packages.get_package(svc, who.account_id, package, verbose)


handler = lambda_handler(ROUTE, endpoint)
