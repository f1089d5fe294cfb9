"""GET /static/{name} — the shop's stylesheet and scripts, content-hashed: cached a year."""

from fastapi.responses import Response

from functions.runtime import Interface, Route, lambda_handler
from webstore.shop.assets import CACHE_CONTROL, asset

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/static/{name}",
    "getShopAsset",
    frozenset(),
    "A static file of the shop",
    html=True,
)


async def endpoint(name: str) -> Response:
    found = asset(name)  # NotFound: the shop's 404 page
    return Response(
        found.body,
        media_type=found.media_type,
        headers={"Cache-Control": CACHE_CONTROL, "X-Content-Type-Options": "nosniff"},
    )


handler = lambda_handler(ROUTE, endpoint)
