"""GET /static/{name} — the panel's vendored assets (htmx), cached by the browser."""

from fastapi.responses import Response

from functions.admin_deps import PanelPagesDep
from functions.runtime import Interface, Route, lambda_handler
from webstore.admin.assets import asset

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/static/{name}",
    "getStaticAsset",
    frozenset(),
    "A vendored script or its licence",
)


async def endpoint(name: str, _pages: PanelPagesDep) -> Response:
    found = asset(name)  # NotFound: the panel's 404 page
    return Response(
        found.body,
        media_type=found.media_type,
        headers={"Cache-Control": "public, max-age=86400", "X-Content-Type-Options": "nosniff"},
    )


handler = lambda_handler(ROUTE, endpoint)
