"""GET {plugin_url}/listing — the in-game `/buy` menu: categories, subcategories, packages."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import listing, schemas

ROUTE = Route(Interface.OPERATOR, "GET", "/listing", "getListing", READ, "The in-game buy menu")


async def endpoint(who: ServerDep, svc: ServicesDep) -> schemas.Listing:
    return listing.listing(svc, who.account_id)


handler = lambda_handler(ROUTE, endpoint)
