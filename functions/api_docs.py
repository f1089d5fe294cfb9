"""`/docs` of the deployed JSON interfaces (docs/deploy.md, "API docs"): FastAPI's Swagger UI
page with Swagger UI's script, stylesheet and icon from the platform itself, never a CDN. The
files come from the pinned `swagger-ui-bundle-v2` package; the deploy uploads them to the
shop's assets bucket (infra/aws/edge.py) under `/static/swagger-ui/<version>/`, served by the
shop's CloudFront distribution with the immutable policy (a version's files never change). The
local stack serves them from the app itself (infra/swagger.py)."""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_swagger_ui_html
from fastapi.responses import HTMLResponse

from webstore.settings import get_settings

# Swagger UI's version in the pinned package (tests/integration/test_api_docs.py checks it).
SWAGGER_UI_VERSION = "5.31.0"
ASSET_PREFIX = f"static/swagger-ui/{SWAGGER_UI_VERSION}"
FILES = ("swagger-ui-bundle.js", "swagger-ui.css", "favicon-32x32.png")
DOCS = "/docs"


def asset_url(base_url: str, name: str) -> str:
    return f"{base_url.rstrip('/')}/{ASSET_PREFIX}/{name}"


def add_docs(app: FastAPI) -> None:
    """The app's `/docs` page, its assets from the shop's address (the stage's settings)."""
    title = f"{app.title} - Swagger UI"

    async def docs(_: Request) -> HTMLResponse:
        base = get_settings().shop_url
        return get_swagger_ui_html(
            openapi_url=app.openapi_url or "/openapi.json",
            title=title,
            swagger_js_url=asset_url(base, "swagger-ui-bundle.js"),
            swagger_css_url=asset_url(base, "swagger-ui.css"),
            swagger_favicon_url=asset_url(base, "favicon-32x32.png"),
        )

    app.add_route(DOCS, docs, methods=["GET"], include_in_schema=False)
