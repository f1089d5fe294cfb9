"""What each interface's OpenAPI document says beyond FastAPI's defaults: the error bodies and
statuses the runtime really answers (in place of FastAPI's HTTPValidationError 422), and the
security schemes its credentials dependencies read, so that clients, Swagger's "Try it out" and
the fuzz run (scripts/fuzz_openapi.py) see the interface as it is.

Applied to the generated document (functions.runtime.build_app asks for it when the document is
first served), not as `responses=` on each route: FastAPI builds a response model field per
declared status at route creation, which would cost every Lambda cold start ~10 ms per path.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from pydantic import BaseModel, Field
from pydantic.json_schema import models_json_schema
from starlette.routing import BaseRoute

from functions.declarations import Interface
from functions.deps import basic_credentials
from functions.openapi_examples import describe
from functions.operator_deps import server_identity
from webstore.operator.auth import SECRET_HEADERS

REF = "#/components/schemas/{model}"


class FieldDetail(BaseModel):
    field: str = Field(description="The input at fault, dotted (`options.username`), or `body`")
    message: str


class StorefrontError(BaseModel):
    """The storefront's error body: SPEC's problem details plus `error_code` and `field_details`."""

    type: str = Field(examples=["https://httpstatuses.io/422"])
    title: str = Field(examples=["Invalid request"])
    status: int = Field(examples=[422])
    detail: str = Field(examples=["Invalid request: quantity: Input should be a valid integer"])
    instance: str = Field(description="The request path", examples=["/api/baskets/1-abc/packages"])
    error_code: str = Field(description="The title in snake case", examples=["invalid_request"])
    field_details: list[FieldDetail]


class OperatorError(BaseModel):
    """The operator interface's error body (COMPAT.md): the message names the field at fault."""

    error_code: int = Field(description="The HTTP status", examples=[404])
    error_message: str = Field(examples=["Package not found"])


ERROR_MODELS: dict[Interface, type[BaseModel]] = {
    Interface.STOREFRONT: StorefrontError,
    Interface.OPERATOR: OperatorError,
}
# What any operation may answer besides its success: the domain errors (webstore.errors), the
# validation error, the body limit (functions.runtime.RequestHygiene), an unexpected error.
ERROR_STATUSES = {
    "400": "Bad request (a body that is not valid JSON: the message says where)",
    "401": "Missing or wrong credentials",
    "403": "Forbidden (the operator interface: a missing or wrong server secret)",
    "404": "Not found",
    "409": "Conflict: the state changed meanwhile, a limit was reached, or it is already done",
    "413": "The request body is too large",
    "422": "Invalid request: the message (and `field_details`) names the field at fault",
    "429": "Too many failed attempts, or polled too early; see `Retry-After`",
    "500": "Unexpected error",
    "503": "A service it depends on is not answering (an online-mode store's Minecraft name service); "
    "nothing was changed, see `Retry-After`",
}
# What some operations answer besides: the tier upgrade charges a saved payment method.
OPERATION_STATUSES = {
    # SPEC: missing credentials on this operation are a 422 (its detail says so), not a 401.
    "createDynamicPackage": {
        "401": "Wrong credentials (missing ones are 422, as SPEC says for this operation)",
        "422": "Invalid request: the message (and `field_details`) names the field at fault; also "
        "Basic auth credentials missing (SPEC)",
    },
    "updateTier": {
        "402": "Payment declined: the saved payment method refused the upgrade's charge; nothing changed"
    },
}
# And what an operation that reads a JSON body answers to a body sent as something else.
UNSUPPORTED_MEDIA_TYPE = {"415": "The body was not sent with `Content-Type: application/json`"}
# FastAPI's own validation error schemas, which no operation answers.
FASTAPI_VALIDATION_SCHEMAS = ("HTTPValidationError", "ValidationError")

# --- security schemes ----------------------------------------------------------------------

BASIC_AUTH = "checkoutKey"
# X-Service-Secret (SPEC), X-Tebex-Secret (COMPAT), legacy X-Buycraft-Secret: any one will do.
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
            "description": "The game server's secret (in either header)",
        }
        for name, header in SECRET_SCHEMES.items()
    },
}
# Which credentials dependency means which requirement (alternatives: any one will do).
SECURITY_BY_DEPENDENCY: dict[Callable[..., Any], list[dict[str, list[str]]]] = {
    basic_credentials: [{BASIC_AUTH: []}],
    server_identity: [{name: []} for name in SECRET_SCHEMES],
}


# Operations that read Basic auth for one option only: anonymous requests are fine, and a shop's
# browser code must not be told to send the checkout key. getCategories: with `usernameId`;
# createBasket: SPEC's public operation (the npm SDK and the headless starter send only the
# public token), where the backend's credentials let return URLs leave the store's site.
OPTIONAL_SECURITY = frozenset({"getCategories", "createBasket"})


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


# --- the document ----------------------------------------------------------------------------


def error_schemas(interface: Interface) -> tuple[str, dict[str, Any]]:
    """The error body's schema name and the component schemas it needs (its own and nested)."""
    model = ERROR_MODELS[interface]
    refs, definitions = models_json_schema([(model, "serialization")], ref_template=REF)
    name = refs[(model, "serialization")]["$ref"].rsplit("/", 1)[-1]
    return name, definitions.get("$defs", {})


def completed_document(
    document: dict[str, Any], routes: Iterable[BaseRoute], interface: Interface
) -> dict[str, Any]:
    """FastAPI's document with every operation's error responses (our body, in place of the
    default 422), its security requirement, the components they name, and its description,
    tags and examples."""
    if interface is Interface.ADMIN:
        return completed_panel_document(document, routes)
    if interface is Interface.SHOP:  # a website: its pages are in no document
        return document
    error_name, error_components = error_schemas(interface)
    components = document.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for unused in FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(unused, None)
    schemas.update(error_components)
    error_body = {"application/json": {"schema": {"$ref": REF.format(model=error_name)}}}
    # Descriptions, tags, examples and the bodies handlers parse themselves (functions/openapi_examples.py).
    describe(document, routes, interface)

    security = {
        (route.path_format, method.lower()): security_of(route.dependant)
        for route in routes
        if isinstance(route, APIRoute) and route.include_in_schema
        for method in route.methods or ()
    }
    used_schemes: set[str] = set()
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            if "{token}" not in path:  # functions.deps.path_token: the token comes from a path only
                operation["parameters"] = [
                    p for p in operation.get("parameters", []) if (p["in"], p["name"]) != ("query", "token")
                ]
            statuses = {
                **ERROR_STATUSES,
                **(UNSUPPORTED_MEDIA_TYPE if "requestBody" in operation else {}),
                **OPERATION_STATUSES.get(operation.get("operationId", ""), {}),
            }
            responses = operation.setdefault("responses", {})
            for status, description in statuses.items():
                responses[status] = {"description": description, "content": error_body}
            operation["responses"] = dict(sorted(responses.items()))
            requirement = security.get((path, method))
            if requirement is not None:
                if operation.get("operationId") in OPTIONAL_SECURITY:
                    requirement = [*requirement, {}]
                operation["security"] = requirement
                used_schemes.update(name for alternative in requirement for name in alternative)
    if used_schemes:
        components["securitySchemes"] = {name: SECURITY_SCHEMES[name] for name in sorted(used_schemes)}
    return document


# --- the control panel's document -----------------------------------------------------------

PANEL_COOKIE = "panelSession"
PANEL_ERRORS = {
    "401": "Wrong email or password (the sign-in form again, with the message)",
    "403": "The role may not do this, or the form's CSRF token is missing or wrong: nothing was done",
    "404": "Not found",
    "409": "Conflict: the state changed meanwhile, or it is already done",
    "413": "The request body is too large",
    "422": "Invalid form: the page again, naming the field at fault",
    "429": "Too many failed sign-ins from this address; see `Retry-After`",
    "500": "Unexpected error",
}
HTML = {"text/html": {"schema": {"type": "string"}}}


def completed_panel_document(document: dict[str, Any], routes: Iterable[BaseRoute]) -> dict[str, Any]:
    """The panel's document: pages answer HTML, forms post `application/x-www-form-urlencoded`
    (with the session's `csrf` token) and answer 303 to the page that shows the result, and
    every page but the sign-in reads the session cookie. Errors are HTML pages too."""
    from functions.admin_deps import checked_form, staff_session
    from webstore.admin.sessions import COOKIE_NAME

    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for unused in FASTAPI_VALIDATION_SCHEMAS:
        schemas.pop(unused, None)
    describe(document, routes, Interface.ADMIN)
    reads: dict[tuple[str, str], set[Callable[..., Any]]] = {
        (route.path_format, method.lower()): set(_calls(route.dependant))
        for route in routes
        if isinstance(route, APIRoute) and route.include_in_schema
        for method in route.methods or ()
    }
    for path, item in document.get("paths", {}).items():
        for method, operation in item.items():
            calls = reads.get((path, method), set())
            responses: dict[str, Any] = {}
            if path.startswith("/static/"):
                responses["200"] = {
                    "description": "The file",
                    "content": {"text/javascript": {"schema": {"type": "string"}}},
                }
            elif method == "post":
                responses["303"] = {
                    "description": "Done: to the page that shows the result (Post/Redirect/Get)"
                }
                responses["200"] = {"description": "The form again, with what to correct", "content": HTML}
                fields = {"type": "object", "additionalProperties": {"type": "string"}}
                if checked_form in calls:
                    fields["properties"] = {
                        "csrf": {"type": "string", "description": "The session's CSRF token"}
                    }
                    fields["required"] = ["csrf"]
                operation["requestBody"] = {
                    "required": True,
                    "content": {"application/x-www-form-urlencoded": {"schema": fields}},
                }
            else:
                responses["200"] = {"description": "The page", "content": HTML}
            if staff_session in calls:
                responses.setdefault("303", {"description": "No valid session: to the sign-in page"})
                operation["security"] = [{PANEL_COOKIE: []}]
            for status, description in PANEL_ERRORS.items():
                responses[status] = {"description": description, "content": HTML}
            operation["responses"] = dict(sorted(responses.items()))
    document["components"]["securitySchemes"] = {
        PANEL_COOKIE: {
            "type": "apiKey",
            "in": "cookie",
            "name": COOKIE_NAME,
            "description": "The signed session cookie `POST /login` sets (HttpOnly, SameSite=Lax)",
        }
    }
    return document
