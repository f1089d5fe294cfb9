"""PUT {headless_url}/baskets/{basketIdent}/dynamic-packages — fill a dynamic category for one basket."""

from fastapi import Path

from functions.deps import TOKEN_PREFIX, BasicAuthDep, ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import schemas
from webstore.storefront.dynamic_packages import put_dynamic_packages
from webstore.storefront.requests import DynamicPackagesRequest

ROUTE = Route(
    Interface.STOREFRONT,
    "PUT",
    f"{TOKEN_PREFIX}/baskets/{{basket_ident}}/dynamic-packages",
    "createDynamicPackage",
    WRITE,
    "Set a basket's packages of a dynamic category (Basic auth)",
)


async def endpoint(
    token: str,
    body: DynamicPackagesRequest,
    svc: ServicesDep,
    credentials: BasicAuthDep,
    basket_ident: str = Path(max_length=80),
) -> schemas.Message:
    message = put_dynamic_packages(svc, token, basket_ident, body, credentials)
    return schemas.Message(message=message)


handler = lambda_handler(ROUTE, endpoint)
