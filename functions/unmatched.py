"""The `$default` route of each HTTP API: requests API Gateway matched to no route.

COMPAT: some clients double a slash (`//queue`), and API Gateway's route matching does not fold
it. Such requests reach this function, which serves them with the whole interface's app (its
middleware folds the slashes and routes them as the local server does); anything else gets the
interface's own 404 body instead of API Gateway's. The app is built on the first request only.
"""

from __future__ import annotations

from functools import cache

from mangum import Mangum

from functions.routes import operations
from functions.runtime import Interface, build_app, powertools_handler


@cache
def interface_adapter(interface: Interface) -> Mangum:
    app = build_app(interface, [(op.route, op.endpoint) for op in operations(interface)])
    return Mangum(app, lifespan="off")


storefront_handler = powertools_handler(
    lambda: interface_adapter(Interface.STOREFRONT), "storefrontUnmatched"
)
operator_handler = powertools_handler(lambda: interface_adapter(Interface.OPERATOR), "operatorUnmatched")
admin_handler = powertools_handler(lambda: interface_adapter(Interface.ADMIN), "adminUnmatched")
shop_handler = powertools_handler(lambda: interface_adapter(Interface.SHOP), "shopUnmatched")
