"""GET {headless_url}/sidebar — the store's sidebar modules, in order, with their data."""

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import schemas
from webstore.storefront.schemas import Module
from webstore.storefront.sidebar import get_sidebar

ROUTE = Route(
    Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/sidebar", "getSidebar", READ, "The store's sidebar modules"
)


async def endpoint(token: str, svc: ServicesDep) -> schemas.Envelope[list[Module]]:
    return schemas.Envelope(data=get_sidebar(svc, token))


handler = lambda_handler(ROUTE, endpoint)
