"""Turns (route, endpoint) into an app: one route per Lambda function, every route locally.

An operation module declares `ROUTE` (its line of the route table) and `endpoint` (an async
FastAPI endpoint), and exports `handler = lambda_handler(ROUTE, endpoint)`. The same pair is
mounted by the local server, the CDK stack reads the route table, and each interface's OpenAPI
document comes from its app.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.routing import APIRoute
from mangum import Mangum
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

# The declarations and the Powertools pieces live apart from FastAPI (event consumers use
# them); operation modules import them from here with the rest of the HTTP runtime.
from functions.declarations import READ, WRITE, WRITE_AND_PUBLISH, Access, Interface, Route
from functions.observability import LambdaHandler, logger, metrics, powertools_handler, tracer
from webstore import json_body
from webstore.errors import DomainError, Throttled
from webstore.settings import get_settings

__all__ = [
    "READ", "WRITE", "WRITE_AND_PUBLISH", "Access", "Endpoint", "Interface", "LambdaHandler", "Route",
    "build_app", "lambda_handler", "logger", "metrics", "powertools_handler", "tracer",
]  # fmt: skip

Endpoint = Callable[..., Any]


# --- errors: mapped once per interface --------------------------------------------------


def _field_name(location: Iterable[Any]) -> str:
    parts = [str(p) for p in location if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def _validation_details(error: RequestValidationError) -> list[dict[str, str]]:
    return [
        {"field": _field_name(e.get("loc", ())), "message": str(e.get("msg", ""))} for e in error.errors()
    ]


def _unreadable_body(error: RequestValidationError) -> tuple[int, str, str] | None:
    """(status, title, detail) when the JSON body could not be read at all: not JSON, or sent
    without `Content-Type: application/json` (FastAPI then hands the model the raw bytes)."""
    for each in error.errors():
        if each.get("type") == "json_invalid":
            document = (
                error.body.decode(errors="replace") if isinstance(error.body, bytes) else str(error.body)
            )
            position = next((p for p in each.get("loc", ()) if isinstance(p, int)), 0)
            line = document.count("\n", 0, position) + 1
            column = position - document.rfind("\n", 0, position)
            reason = str((each.get("ctx") or {}).get("error", "")).strip()
            detail = f"The body is not valid JSON at line {line} column {column}"
            return 400, "Bad request", f"{detail}: {reason}" if reason else detail
    if isinstance(error.body, bytes) and error.body:
        return 415, "Unsupported media type", "Send the body as JSON with Content-Type: application/json"
    return None


def storefront_error(
    request: Request, status: int, title: str, detail: str, fields: list[dict[str, str]] | None = None
) -> JSONResponse:
    body = {
        "type": f"https://httpstatuses.io/{status}",
        "title": title,
        "status": status,
        "detail": detail,
        "instance": str(request.url.path),
        "error_code": title.lower().replace(" ", "_"),
        "field_details": fields or [],
    }
    return JSONResponse(body, status_code=status)


def operator_error(
    request: Request, status: int, title: str, detail: str, fields: Any = None
) -> JSONResponse:
    """COMPAT's `{error_code, error_message}`; the message names the field at fault."""
    field = fields[0]["field"] if fields and len(fields) == 1 else None
    if field and field not in detail:
        detail = f"{field}: {detail}"
    return JSONResponse({"error_code": status, "error_message": detail}, status_code=status)


def admin_error(request: Request, status: int, title: str, detail: str, fields: Any = None) -> Response:
    """The control panel's error page (HTML, never a JSON body); a missing session is the
    sign-in page (303)."""
    from functions.pages import NO_STORE, html_page
    from webstore.admin.layout import problem

    del fields
    page = problem(title, detail)
    return (
        html_page(page, status=status, csp=page.policy or "")
        if status != 303
        else Response(status_code=303, headers={"Location": detail, **NO_STORE})
    )


def shop_error(request: Request, status: int, title: str, detail: str, fields: Any = None) -> Response:
    """The players' shop: its branded error page with a way back (functions/shop_deps.py)."""
    from functions.shop_deps import shop_error as branded

    del fields
    return branded(request, status, title, detail)


def error_renderer(interface: Interface) -> Callable[..., Response]:
    return {
        Interface.STOREFRONT: storefront_error,
        Interface.OPERATOR: operator_error,
        Interface.ADMIN: admin_error,
        Interface.SHOP: shop_error,
    }[interface]


def _install_error_handlers(app: FastAPI, interface: Interface) -> None:
    render = error_renderer(interface)

    @app.exception_handler(DomainError)
    async def domain_error(request: Request, error: DomainError) -> Response:
        location = getattr(error, "location", None)
        if interface is Interface.ADMIN and isinstance(location, str):  # sign in first
            return admin_error(request, 303, "See other", location)
        fields = [{"field": error.field, "message": error.detail}] if error.field else None
        response = render(request, error.status, error.title, error.detail, fields)
        if isinstance(error, Throttled) or getattr(error, "retry_after", None):  # 429, 503
            response.headers["Retry-After"] = str(error.retry_after)  # type: ignore[attr-defined]
        return response

    @app.exception_handler(RequestValidationError)
    async def validation_error(request: Request, error: RequestValidationError) -> Response:
        unreadable = _unreadable_body(error)
        if unreadable is not None:
            status, title, detail = unreadable
            return render(request, status, title, detail, [{"field": "body", "message": detail}])
        details = _validation_details(error)
        summary = "; ".join(f"{d['field']}: {d['message']}" for d in details[:5])
        return render(request, 422, "Invalid request", f"Invalid request: {summary}", details)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, error: StarletteHTTPException) -> Response:
        title = {
            400: "Bad request",
            404: "Not found",
            405: "Method not allowed",
            413: "Payload too large",
        }.get(error.status_code, "Error")
        return render(request, error.status_code, title, str(error.detail))

    @app.exception_handler(Exception)
    async def unexpected(request: Request, error: Exception) -> Response:
        logger.exception("unhandled error", extra={"path": request.url.path})
        return render(request, 500, "Internal error", "Something went wrong on our side; try again")


# --- middleware --------------------------------------------------------------------------

_SLASHES = re.compile(r"/{2,}")


class RequestHygiene:
    """Folds doubled slashes (`//queue`, COMPAT.md); refuses bodies over the size limit, by
    Content-Length and by the bytes actually read (a chunked body has no Content-Length); and
    adds the headers HTTP requires on some errors: `WWW-Authenticate` on a 401, `Allow` (every
    method the path has) on a 405."""

    AUTHENTICATE = b'Basic realm="webstore"'
    # The panel signs in with a form: a Basic challenge would make browsers show their own
    # password dialog over the sign-in page, so its 401 names the form instead.
    PANEL_AUTHENTICATE = b'Form realm="webstore panel"'

    def __init__(self, app: ASGIApp, interface: Interface) -> None:
        self.app = app
        self.interface = interface

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope.get("path", "/")
        if "//" in path:
            scope = {**scope, "path": _SLASHES.sub("/", path), "raw_path": _SLASHES.sub("/", path).encode()}
        limit = get_settings().max_body_bytes
        length = dict(scope.get("headers") or []).get(b"content-length")
        if length is not None and length.isascii() and length.isdigit() and int(length) > limit:
            request = Request(scope)
            render = error_renderer(self.interface)
            response = render(request, 413, "Payload too large", self._too_large(limit))
            await response(scope, receive, send)
            return
        await self.app(scope, self._counted(receive, limit), self._with_protocol_headers(scope, send))

    def _challenge(self) -> bytes:
        return self.PANEL_AUTHENTICATE if self.interface is Interface.ADMIN else self.AUTHENTICATE

    @staticmethod
    def _too_large(limit: int) -> str:
        return f"The request body exceeds {limit} bytes"

    def _counted(self, receive: Receive, limit: int) -> Receive:
        """`receive`, stopping with a 413 as soon as the body read so far passes the limit
        (FastAPI re-raises an HTTPException met while reading, and the handlers render it)."""
        read = 0

        async def counted() -> Message:
            nonlocal read
            message = await receive()
            if message["type"] == "http.request":
                read += len(message.get("body", b""))
                if read > limit:
                    raise StarletteHTTPException(413, self._too_large(limit))
            return message

        return counted

    def _with_protocol_headers(self, scope: Scope, send: Send) -> Send:
        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] in (401, 405):
                headers = list(message.get("headers", []))
                names = {name.lower() for name, _ in headers}
                if message["status"] == 401 and b"www-authenticate" not in names:
                    headers.append((b"www-authenticate", self._challenge()))
                if message["status"] == 405:
                    headers = [(n, v) for n, v in headers if n.lower() != b"allow"]
                    headers.append((b"allow", ", ".join(self._allowed(scope)).encode()))
                message = {**message, "headers": headers}
            await send(message)

        return sending

    @staticmethod
    def _allowed(scope: Scope) -> list[str]:
        """Every method some route of the app serves at this path (the router's own 405 names
        only the first route that matched the path)."""
        methods: set[str] = set()
        app = scope.get("app")
        for route in getattr(app, "routes", ()):
            if route.matches(scope)[0] is not Match.NONE:
                methods.update(getattr(route, "methods", None) or ())
        return sorted(methods)


# --- apps and handlers --------------------------------------------------------------------

TITLES = {
    Interface.STOREFRONT: ("Webstore storefront interface", "2.1.0"),
    Interface.OPERATOR: ("Webstore operator interface", "1.0.0"),
    Interface.ADMIN: ("Webstore control panel", "1.0.0"),
    Interface.SHOP: ("Webstore shop", "1.0.0"),
}


class _StrictJsonRequest(Request):
    """FastAPI reads a JSON body with `request.json()`: here, `webstore.json_body.loads` (a
    byte-order mark, a body not in UTF-8 or a key given twice is refused, 400 naming it)."""

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            self._json = json_body.loads(await self.body())
        return self._json


class _StrictJsonRoute(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            response: Response = await handler(_StrictJsonRequest(request.scope, request.receive))
            return response

        return strict


def _declared(route: Route) -> Callable[[Request], Any]:
    """A dependency that hands the route's declaration to the request (`request.state.route`):
    the panel's session dependency reads the capability the route requires from it."""

    async def declared(request: Request) -> None:
        request.state.route = route

    return declared


def build_app(interface: Interface, operations: Iterable[tuple[Route, Endpoint]]) -> FastAPI:
    operations = list(operations)
    title, version = TITLES[interface]
    app = FastAPI(title=title, version=version, docs_url=None, redoc_url=None)
    # The shop is a website, not an API: no /docs (its pages stay out of every document).
    if interface is not Interface.SHOP:
        from functions.api_docs import add_docs

        add_docs(app)
    app.router.route_class = _StrictJsonRoute  # every body is read by one strict JSON parser
    _install_error_handlers(app, interface)
    for route, endpoint in operations:
        for path in route.paths:
            app.add_api_route(
                path,
                endpoint,
                dependencies=[Depends(_declared(route))] if interface is Interface.ADMIN else None,
                methods=[route.method],
                operation_id=route.operation_id
                if path == route.path
                else f"{route.operation_id}_{len(path)}",
                summary=route.summary or None,
                status_code=route.status_code,
                # Hosted pages stay out of the JSON interfaces' documents; the panel's document
                # is its pages and forms.
                include_in_schema=(not route.html or interface is Interface.ADMIN) and path == route.path,
                response_model_exclude_none=False,
            )
    _complete_document(app, interface)
    app.add_middleware(RequestHygiene, interface=interface)
    if any(route.html for route, _ in operations) and interface is Interface.STOREFRONT:
        # the hosted pages' language (functions.pages)
        from functions.pages import PageLanguage

        app.add_middleware(PageLanguage)
    return app


def _complete_document(app: FastAPI, interface: Interface) -> None:
    """The app's OpenAPI document completed with what FastAPI cannot see (functions/openapi.py:
    error bodies and statuses, security schemes). Done when the document is first asked for,
    not at build: a Lambda cold start never pays for it."""
    generate = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            from functions.openapi import completed_document

            app.openapi_schema = completed_document(generate(), app.routes, interface)
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def lambda_handler(route: Route, endpoint: Endpoint) -> LambdaHandler:
    """The Lambda entry point of one operation: its one-route app behind Mangum and Powertools."""
    adapter = Mangum(build_app(route.interface, [(route, endpoint)]), lifespan="off")
    return powertools_handler(lambda: adapter, route.operation_id)
