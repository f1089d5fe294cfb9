"""GET {headless_url}/ — the store."""

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas

ROUTE = Route(
    Interface.STOREFRONT, "GET", TOKEN_PREFIX, "getWebstore", READ, "The store", aliases=(f"{TOKEN_PREFIX}/",)
)


async def endpoint(token: str, svc: ServicesDep) -> schemas.Envelope[schemas.Webstore]:
    return schemas.Envelope(data=catalog.get_webstore(svc, token))


handler = lambda_handler(ROUTE, endpoint)
