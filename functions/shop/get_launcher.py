"""GET /tebex.js — the checkout launcher with Tebex.js's checkout contract, for third-party sites."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.errors import NotFound
from webstore.shop.launcher import CACHE_CONTROL, MEDIA_TYPE, launcher_script

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/tebex.js",
    "getShopLauncher",
    READ,
    "The checkout launcher (Tebex.js's checkout contract) for sites that sell through the shop",
    html=True,
)


async def endpoint(svc: ServicesDep) -> Response:
    try:
        body = launcher_script(svc)
    except NotFound as error:  # a script, not a page: nothing to brand
        return Response(error.detail, status_code=404, media_type="text/plain; charset=utf-8")
    return Response(
        body,
        media_type=MEDIA_TYPE,
        headers={"Cache-Control": CACHE_CONTROL, "X-Content-Type-Options": "nosniff"},
    )


handler = lambda_handler(ROUTE, endpoint)
