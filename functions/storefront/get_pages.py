"""GET {headless_url}/pages — the store's custom pages."""

from functions.deps import TOKEN_PREFIX, ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import catalog, schemas

ROUTE = Route(Interface.STOREFRONT, "GET", f"{TOKEN_PREFIX}/pages", "getCustomPages", READ, "Custom pages")


async def endpoint(token: str, svc: ServicesDep) -> schemas.Envelope[list[schemas.CMSPage]]:
    return schemas.Envelope(data=catalog.get_pages(svc, token))


handler = lambda_handler(ROUTE, endpoint)
