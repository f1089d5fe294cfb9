"""POST {plugin_url}/checkout — a checkout link for a player and a package (JSON or form); 201."""

from fastapi import Request

from functions.deps import ServicesDep
from functions.operator_deps import ServerDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.operator import checkout_links, schemas
from webstore.operator.bodies import parse_body

ROUTE = Route(
    Interface.OPERATOR,
    "POST",
    "/checkout",
    "createCheckoutLink",
    WRITE,
    "A checkout link for a player",
    status_code=201,
)


async def endpoint(request: Request, who: ServerDep, svc: ServicesDep) -> schemas.CheckoutLink:
    body = parse_body(
        await request.body(), request.headers.get("content-type", ""), schemas.CheckoutLinkRequest
    )
    return checkout_links.checkout_link(svc, who.account_id, body)


handler = lambda_handler(ROUTE, endpoint)
