"""FastAPI dependencies shared by the operation modules: services and credentials.

Dependencies are `async def`, like the endpoints: FastAPI runs a plain `def` dependency in its
thread pool, which on a cold start means starting a worker thread (and per request costs more
than the call itself).
"""

from __future__ import annotations

import base64
import binascii

from fastapi import Request

from webstore.services import Services, get_services

TOKEN_PREFIX = "/api/accounts/{token}"  # storefront routes that carry the public token
BASKET_PREFIX = "/api/baskets/{basket_ident}"  # storefront routes without it (COMPAT.md)


async def services() -> Services:
    return get_services()


async def path_token(request: Request) -> str | None:
    """The public token of a route under TOKEN_PREFIX; None on its token-less alias."""
    token = request.path_params.get("token")
    return str(token) if token is not None else None


def basic_credentials(request: Request) -> tuple[str, str] | None:
    """(username, password) of an HTTP Basic Authorization header; None when absent or garbled."""
    header = request.headers.get("authorization", "")
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "basic" or not value:
        return None
    try:
        decoded = base64.b64decode(value.strip(), validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return None
    username, sep, password = decoded.partition(":")
    return (username, password) if sep else None


def client_ip(request: Request) -> str:
    return request.client.host if request.client else "unknown"
