"""GET {plugin_url}/packages — every package (`?verbose=true` adds descriptions)."""

from fastapi import Query

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import packages, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/packages", "getPackages", READ, "Packages")


async def endpoint(
    who: ServerDep, svc: ServicesDep, verbose: bool = Query(False)
) -> list[schemas.VerbosePackage | schemas.OperatorPackage]:
    return list(packages.list_packages(svc, who.account_id, verbose))


handler = lambda_handler(ROUTE, endpoint)
