"""`/docs` on the local stack without the internet: Swagger UI's assets served by the app itself,
from the pinned `swagger-ui-bundle-v2` package (the `local` extra), instead of FastAPI's default
CDN links. The deployed interfaces keep FastAPI's page (the Lambda layer carries no assets)."""

from __future__ import annotations

from fastapi import FastAPI
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from swagger_ui_bundle import swagger_ui_path

ASSETS = "/docs/assets"
DOCS = "/docs"


def with_offline_docs(app: FastAPI) -> FastAPI:
    """Replace the app's `/docs` page by one whose scripts, styles and icon the app serves."""
    title = f"{app.title} - Swagger UI"
    openapi_url = app.openapi_url or "/openapi.json"

    async def docs(_: object) -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=title,
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon-32x32.png",
            oauth2_redirect_url=app.swagger_ui_oauth2_redirect_url,
        )

    routes = [r for r in app.router.routes if not (isinstance(r, Route) and r.path == DOCS)]
    # First: the interface's own catch-all (unmatched paths answer in its error shape) must not win.
    app.router.routes = [
        Mount(ASSETS, app=StaticFiles(directory=swagger_ui_path), name="swagger-ui-assets"),
        Route(DOCS, docs, methods=["GET"], include_in_schema=False),
        *routes,
    ]
    return app
