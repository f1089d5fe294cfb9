"""What each interface's OpenAPI document says beyond FastAPI's defaults: the error bodies and
statuses the runtime really answers (not FastAPI's HTTPValidationError 422), and the security
schemes its credentials dependencies read, so that clients, Swagger's "Try it out" and the fuzz
run (scripts/fuzz_openapi.py) see the interface as it is.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from fastapi import params
from fastapi.dependencies.models import Dependant
from fastapi.dependencies.utils import get_dependant
from pydantic import BaseModel, Field

from functions.declarations import Interface
from functions.deps import basic_credentials
from functions.operator_deps import server_identity
from webstore.operator.auth import SECRET_HEADERS


class FieldDetail(BaseModel):
    field: str = Field(description="The input at fault, dotted (`options.username`), or `body`")
    message: str


class StorefrontError(BaseModel):
    """The storefront's error body (RFC 9457 problem details plus `error_code`/`field_details`)."""

    type: str = Field(examples=["https://httpstatuses.io/422"])
    title: str = Field(examples=["Invalid request"])
    status: int = Field(examples=[422])
    detail: str = Field(examples=["Invalid request: quantity: Input should be a valid integer"])
    instance: str = Field(description="The request path", examples=["/api/baskets/1-abc/packages"])
    error_code: str = Field(examples=["invalid_request"])
    field_details: list[FieldDetail]


class OperatorError(BaseModel):
    """The operator interface's error body (COMPAT.md): the message names the field at fault."""

    error_code: int = Field(description="The HTTP status", examples=[404])
    error_message: str = Field(examples=["No package with id 9"])


# What any operation may answer besides its success: the domain errors (webstore.errors), the
# validation error, the body limit, and an unexpected error.
ERROR_STATUSES = {
    400: "Bad request (a body that is not valid JSON: the message says where)",
    401: "Missing or wrong credentials",
    403: "Forbidden",
    404: "Not found",
    409: "Conflict: the state changed meanwhile, a limit was reached, or it is already done",
    413: "The request body is too large",
    422: "Invalid request: the message (and `field_details`) names the field at fault",
    429: "Too many failed attempts; see `Retry-After`",
    500: "Unexpected error",
}
ERROR_MODELS: dict[Interface, type[BaseModel]] = {
    Interface.STOREFRONT: StorefrontError,
    Interface.OPERATOR: OperatorError,
}


# And what an operation that reads a JSON body answers to a body sent as something else.
UNSUPPORTED_MEDIA_TYPE = {415: "The body was not sent with `Content-Type: application/json`"}


def error_responses(interface: Interface, *, json_body: bool) -> dict[int | str, dict[str, Any]]:
    """The `responses=` of a route of the interface (its 422 replaces FastAPI's default)."""
    model = ERROR_MODELS[interface]
    statuses = {**ERROR_STATUSES, **UNSUPPORTED_MEDIA_TYPE} if json_body else ERROR_STATUSES
    return {status: {"model": model, "description": text} for status, text in sorted(statuses.items())}


def reads_json_body(path: str, endpoint: Callable[..., Any]) -> bool:
    """Whether FastAPI parses a JSON body for the endpoint (a body model, here or in a dependency;
    form fields are not JSON)."""

    def json_fields(dependant: Dependant) -> Iterator[Any]:
        yield from (f for f in dependant.body_params if not isinstance(f.field_info, params.Form))
        for each in dependant.dependencies:
            yield from json_fields(each)

    return any(json_fields(get_dependant(path=path, call=endpoint)))


# --- security schemes ----------------------------------------------------------------------

BASIC_AUTH = "checkoutKey"
# X-Service-Secret (SPEC) and X-Tebex-Secret (COMPAT): one scheme each, either one will do.
SECRET_SCHEMES = {header.title().replace("-", ""): header.title() for header in SECRET_HEADERS}
SECURITY_SCHEMES: dict[str, dict[str, Any]] = {
    BASIC_AUTH: {
        "type": "http",
        "scheme": "basic",
        "description": "The webstore identifier (public token) as user name, the checkout API key "
        "as password",
    },
    **{
        name: {
            "type": "apiKey",
            "in": "header",
            "name": header,
            "description": "The game server's secret (either header)",
        }
        for name, header in SECRET_SCHEMES.items()
    },
}
# Which credentials dependency means which requirement (alternatives: any one will do).
SECURITY_BY_DEPENDENCY: dict[Callable[..., Any], list[dict[str, list[str]]]] = {
    basic_credentials: [{BASIC_AUTH: []}],
    server_identity: [{name: []} for name in SECRET_SCHEMES],
}


def _calls(dependant: Dependant) -> Iterator[Callable[..., Any]]:
    for each in dependant.dependencies:
        if each.call is not None:
            yield each.call
        yield from _calls(each)


def security_of(dependant: Dependant) -> list[dict[str, list[str]]] | None:
    """The security requirement of an operation: from the credentials dependencies it uses."""
    for call in _calls(dependant):
        if call in SECURITY_BY_DEPENDENCY:
            return SECURITY_BY_DEPENDENCY[call]
    return None


def with_security_schemes(document: dict[str, Any]) -> dict[str, Any]:
    """The document with the schemes its operations' `security` names."""
    used = {
        name
        for item in document.get("paths", {}).values()
        for operation in item.values()
        for requirement in operation.get("security", ())
        for name in requirement
    }
    if used:
        schemes = document.setdefault("components", {}).setdefault("securitySchemes", {})
        schemes.update({name: SECURITY_SCHEMES[name] for name in sorted(used)})
    return document
