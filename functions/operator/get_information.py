"""GET {plugin_url}/information — the account and server a secret belongs to (plugins call it first)."""

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.operator import information
from webstore.operator.information_wire import Information

ROUTE = Route(Interface.OPERATOR, "GET", "/information", "getInformation", READ, "Account and server")


async def endpoint(who: ServerDep, svc: ServicesDep) -> Information:
    return information.information(svc, who)


handler = lambda_handler(ROUTE, endpoint)
