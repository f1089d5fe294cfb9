"""CORS of the storefront interface: one policy, read by the CDK stack (API Gateway answers it)
and by the local stack (Starlette's middleware answers it), so a browser shop sees the same
headers on a laptop as in AWS. The operator interface has none: game servers are not browsers.

The allowed origins come from the CDK context `corsOrigins` (cdk.json, or `-c corsOrigins=…`;
comma-separated; default `*`); the local stack reads cdk.json's value, or `serve --cors-origins`.

The allowed methods come from the route table, never `*`: a preflight names the methods the
storefront has at the path asked about (`path_methods`; the local stack answers per path), and
API Gateway, whose CORS configuration is one list per API, gets every method the storefront
has (`storefront_methods`).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from starlette.middleware.cors import CORSMiddleware
from starlette.routing import BaseRoute, Match
from starlette.types import ASGIApp, Receive, Scope, Send

CDK_JSON = Path(__file__).resolve().parent.parent / "cdk.json"
CONTEXT_KEY = "corsOrigins"
DEFAULT_ORIGINS = "*"
# Shops call the storefront interface from browsers, with Basic auth set by script.
ALLOW_HEADERS = ("Authorization", "Content-Type", "X-Requested-With")
MAX_AGE_SECONDS = 3600


@cache
def storefront_methods() -> tuple[str, ...]:
    """Every method some storefront route has (the route table), sorted."""
    from functions.routes import Interface, operations

    return tuple(sorted({op.route.method for op in operations(Interface.STOREFRONT)}))


def path_methods(routes: list[BaseRoute], scope: Scope) -> tuple[str, ...]:
    """The methods the document has at the scope's path (none: no such path), sorted. As in
    OpenAPI, a concrete path wins over a templated one: `…/packages/remove` is its POST, not
    also the PUT of `…/packages/{package_id}` whose pattern it happens to fit."""
    found: dict[int, set[str]] = {}
    for route in routes:
        if route.matches(scope)[0] is not Match.NONE:
            path = str(getattr(route, "path", ""))
            literal = sum(1 for part in path.split("/") if part and not part.startswith("{"))
            found.setdefault(literal, set()).update(getattr(route, "methods", None) or ())
    return tuple(sorted(found[max(found)])) if found else ()


@dataclass(frozen=True)
class CorsPolicy:
    allow_origins: tuple[str, ...]
    allow_methods: tuple[str, ...] = ()  # () → storefront_methods()
    allow_headers: tuple[str, ...] = ALLOW_HEADERS
    max_age_seconds: int = MAX_AGE_SECONDS

    @property
    def methods(self) -> tuple[str, ...]:
        """The allowed methods of the whole interface (API Gateway's one list)."""
        return self.allow_methods or storefront_methods()

    def middleware_options(self) -> dict[str, Any]:
        """Keyword arguments of starlette.middleware.cors.CORSMiddleware."""
        return {
            "allow_origins": list(self.allow_origins),
            "allow_methods": list(self.methods),
            "allow_headers": list(self.allow_headers),
            "max_age": self.max_age_seconds,
            "allow_credentials": False,  # Basic auth goes in a header set by script, not a cookie
        }


class PathCors:
    """CORS answered per path, as the route table has it: a preflight's `Allow-Methods` are the
    methods of the path asked about (a path without a route allows none), every other request
    is Starlette's CORSMiddleware with the policy as it is."""

    def __init__(self, app: ASGIApp, policy: CorsPolicy, routes: list[BaseRoute]) -> None:
        self.app = app
        self.policy = policy
        self.routes = routes
        self.everything = CORSMiddleware(app, **policy.middleware_options())
        self.by_methods: dict[tuple[str, ...], CORSMiddleware] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "OPTIONS":
            await self.everything(scope, receive, send)
            return
        methods = path_methods(self.routes, scope)
        middleware = self.by_methods.get(methods)
        if middleware is None:
            options = {**self.policy.middleware_options(), "allow_methods": list(methods)}
            middleware = self.by_methods.setdefault(methods, CORSMiddleware(self.app, **options))
        await middleware(scope, receive, send)


def parse_origins(value: Any) -> tuple[str, ...]:
    """`corsOrigins` as given: a comma-separated string or a list; empty means the default."""
    if value is None or value == "" or value == []:
        value = DEFAULT_ORIGINS
    parts: Sequence[Any] = value if isinstance(value, list) else str(value).split(",")
    return tuple(str(o).strip() for o in parts if str(o).strip())


def storefront_policy(origins: Any = None) -> CorsPolicy:
    return CorsPolicy(parse_origins(origins))


def cdk_json_origins(path: Path = CDK_JSON) -> Any:
    """The `corsOrigins` the CDK app would read from cdk.json's context (None when unset)."""
    try:
        return json.loads(path.read_text()).get("context", {}).get(CONTEXT_KEY)
    except (OSError, ValueError):
        return None
