"""GET /static/{name} — the shop's stylesheet and scripts, content-hashed: cached a year."""

from fastapi.responses import Response

from functions.runtime import Interface, Route, lambda_handler
from webstore.errors import NotFound
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
    try:
        found = asset(name)
    except NotFound as error:  # a file, not a page: no store to read, nothing to brand
        return Response(error.detail, status_code=404, media_type="text/plain; charset=utf-8")
    return Response(
        found.body,
        media_type=found.media_type,
        headers={"Cache-Control": CACHE_CONTROL, "X-Content-Type-Options": "nosniff"},
    )


handler = lambda_handler(ROUTE, endpoint)
