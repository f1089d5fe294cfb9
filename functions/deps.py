"""FastAPI dependencies shared by the operation modules: services and credentials.

Endpoints take them as typed aliases (`svc: ServicesDep`, `credentials: BasicAuthDep`), one
`Annotated` declaration each. Dependencies are `async def`, like the endpoints: FastAPI runs a
plain `def` dependency in its thread pool, which on a cold start means starting a worker thread
(and per request costs more than the call itself).
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request

from webstore.services import Services, get_services

if TYPE_CHECKING:
    from webstore.storefront.credentials import Credentials

TOKEN_PREFIX = "/api/accounts/{token}"  # storefront routes that carry the public token
BASKET_PREFIX = "/api/baskets/{basket_ident}"  # storefront routes without it (COMPAT.md)


async def services() -> Services:
    return get_services()


async def path_token(request: Request, token: str = "") -> str | None:
    """The public token of a route under TOKEN_PREFIX; None on its token-less alias.

    `token` is there for the OpenAPI document: on a route whose path has `{token}`, FastAPI makes
    it a required path parameter and documents it. On a token-less alias it would be an optional
    query parameter, which is ignored (as any unknown query parameter) and left out of the
    document (functions/openapi.py): the token only ever comes from the path.
    """
    del token  # read from the path below, so an alias's query string cannot supply one
    value = request.path_params.get("token")
    return str(value) if value is not None else None


def parse_basic_auth(header: str, client: str) -> Credentials | None:
    """The credentials of an HTTP Basic Authorization header from `client` (the caller's address,
    whose wrong keys the guard counts); None when absent or garbled."""
    from webstore.storefront.credentials import Credentials

    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    username, sep, password = decoded.partition(":")
    return Credentials(username, password, client) if sep else None


async def basic_credentials(request: Request) -> Credentials | None:
    """The storefront's Basic auth (webstore identifier : checkout API key), as sent. The use
    case checks it against the store it reads anyway (webstore.storefront.credentials): checking
    here would cost a round trip of its own."""
    return parse_basic_auth(request.headers.get("authorization", ""), client_ip(request))


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"


ServicesDep = Annotated[Services, Depends(services)]
PathTokenDep = Annotated[str | None, Depends(path_token)]

if TYPE_CHECKING:
    BasicAuthDep = Annotated[Credentials | None, Depends(basic_credentials)]


def __getattr__(name: str) -> Any:
    """`BasicAuthDep` on first import of it: its type lives beside the store model
    (webstore.storefront.credentials imports webstore.catalog), which the operator routes and
    most storefront routes would otherwise load on every cold start without using it."""
    if name == "BasicAuthDep":
        from webstore.storefront.credentials import Credentials

        alias = Annotated[Credentials | None, Depends(basic_credentials)]
        globals()[name] = alias
        return alias
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
