"""FastAPI dependencies of the operator interface: the server secret, checked once per request."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request

from functions.deps import ServicesDep, client_ip
from webstore.operator.auth import SECRET_HEADERS, ServerIdentity, authenticate


async def server_identity(request: Request, svc: ServicesDep) -> ServerIdentity:
    """The server whose secret came in `X-Service-Secret` (SPEC), `X-Tebex-Secret` (COMPAT) or
    `X-Buycraft-Secret` (the legacy plugin)."""
    secret = next((request.headers[h] for h in SECRET_HEADERS if request.headers.get(h)), None)
    return authenticate(svc, secret, client_ip(request))


ServerDep = Annotated[ServerIdentity, Depends(server_identity)]
