"""Both interfaces' OpenAPI documents say what the interfaces do: every path parameter declared,
our error bodies (not FastAPI's HTTPValidationError) on every operation, the credentials each
operation reads declared as security schemes. The fuzz run (scripts/fuzz_openapi.py) and
clients generated from the documents rely on it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from functions.declarations import Interface
from functions.routes import operations
from functions.runtime import build_app
from webstore.operator.auth import SECRET_HEADERS

ERROR_SCHEMAS = {Interface.STOREFRONT: "StorefrontError", Interface.OPERATOR: "OperatorError"}


def document(interface: Interface) -> dict[str, Any]:
    app = build_app(interface, [(op.route, op.endpoint) for op in operations(interface)])
    return app.openapi()


def each_operation(doc: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(path, method, op) for path, item in doc["paths"].items() for method, op in item.items()]


@pytest.mark.parametrize("interface", list(Interface))
def test_every_path_parameter_is_declared(interface: Interface) -> None:
    undeclared = [
        f"{method.upper()} {path}: {name}"
        for path, method, op in each_operation(document(interface))
        for name in re.findall(r"{(\w+)}", path)
        if not any(
            p["in"] == "path" and p["name"] == name and p["required"] for p in op.get("parameters", [])
        )
    ]
    assert undeclared == []


def test_the_token_less_operations_document_no_token() -> None:
    """path_token's `token` is a path parameter under TOKEN_PREFIX; elsewhere FastAPI would list
    it as a query parameter that nothing reads."""
    doc = document(Interface.STOREFRONT)
    token_less = [(path, op) for path, _, op in each_operation(doc) if "{token}" not in path]
    assert token_less
    for path, op in token_less:
        assert "token" not in {p["name"] for p in op.get("parameters", [])}, path


def test_the_storefront_token_is_declared_where_a_dependency_reads_it() -> None:
    coupons = document(Interface.STOREFRONT)["paths"]["/api/accounts/{token}/baskets/{basket_ident}/coupons"]
    (token,) = [p for p in coupons["post"]["parameters"] if p["name"] == "token"]
    assert {k: v for k, v in token.items() if k != "example"} == {
        "name": "token",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "title": "Token"},
    }


@pytest.mark.parametrize("interface", list(ERROR_SCHEMAS))
def test_every_operation_declares_our_error_bodies(interface: Interface) -> None:
    doc = document(interface)
    expected = {"$ref": f"#/components/schemas/{ERROR_SCHEMAS[interface]}"}
    for path, method, op in each_operation(doc):
        for status in ("400", "401", "404", "409", "413", "422", "429", "500"):
            body = op["responses"][status]["content"]["application/json"]["schema"]
            assert body == expected, f"{method.upper()} {path} {status}"
    assert "HTTPValidationError" not in json.dumps(doc)
    assert "ValidationError" not in doc["components"]["schemas"]


def test_the_error_schemas_are_the_bodies_the_handlers_render() -> None:
    storefront = document(Interface.STOREFRONT)["components"]["schemas"]["StorefrontError"]
    assert set(storefront["required"]) == {
        "type", "title", "status", "detail", "instance", "error_code", "field_details",
    }  # fmt: skip
    operator = document(Interface.OPERATOR)["components"]["schemas"]["OperatorError"]
    assert operator["properties"]["error_code"]["type"] == "integer"
    assert set(operator["required"]) == {"error_code", "error_message"}


def test_hosted_pages_stay_out_of_the_document() -> None:
    hosted = {op.route.path for op in operations(Interface.STOREFRONT) if op.route.html}
    assert hosted
    assert hosted.isdisjoint(document(Interface.STOREFRONT)["paths"])


def test_every_operator_operation_takes_the_server_secret_in_any_of_its_headers() -> None:
    doc = document(Interface.OPERATOR)
    schemes = doc["components"]["securitySchemes"]
    assert sorted(s["name"].lower() for s in schemes.values()) == sorted(SECRET_HEADERS)
    assert all(s["type"] == "apiKey" and s["in"] == "header" for s in schemes.values())
    for path, method, op in each_operation(doc):
        offered = sorted(next(iter(requirement)) for requirement in op["security"])
        assert offered == sorted(schemes), f"{method.upper()} {path}"


def test_storefront_operations_that_read_basic_auth_declare_it() -> None:
    doc = document(Interface.STOREFRONT)
    assert doc["components"]["securitySchemes"]["checkoutKey"] == {
        "type": "http",
        "scheme": "basic",
        "description": doc["components"]["securitySchemes"]["checkoutKey"]["description"],
    }
    secured = {(method, path) for path, method, op in each_operation(doc) if "security" in op}
    assert ("patch", "/api/accounts/{token}/tiers/{tier_id}") in secured
    assert ("get", "/api/accounts/{token}/packages") not in secured
    categories = doc["paths"]["/api/accounts/{token}/categories"]["get"]
    assert categories["security"] == [{"checkoutKey": []}, {}]  # only with usernameId
    # SPEC's createBasket is public (real clients send only the token); credentials are optional
    baskets = doc["paths"]["/api/accounts/{token}/baskets"]["post"]
    assert baskets["security"] == [{"checkoutKey": []}, {}]
    # SPEC's createDynamicPackage answers missing credentials with 422: the document says so
    dynamic = doc["paths"]["/api/accounts/{token}/baskets/{basket_ident}/dynamic-packages"]["put"]
    assert dynamic["security"] == [{"checkoutKey": []}]
    assert "missing ones are 422" in dynamic["responses"]["401"]["description"]
    assert "credentials missing" in dynamic["responses"]["422"]["description"]


def test_operations_that_read_a_json_body_declare_the_415_and_others_do_not() -> None:
    for interface in ERROR_SCHEMAS:  # the panel's forms are not JSON (below)
        for path, method, op in each_operation(document(interface)):
            assert ("415" in op["responses"]) == ("requestBody" in op), f"{method.upper()} {path}"


def test_the_panel_document_lists_its_pages_and_forms_as_html() -> None:
    doc = document(Interface.ADMIN)
    listed = {(method.upper(), path) for path, method, _ in each_operation(doc)}
    routes = {(op.route.method, op.route.path) for op in operations(Interface.ADMIN)}
    assert routes == listed and ("POST", "/login") in routes
    for path, method, op in each_operation(doc):
        for status in ("401", "403", "404", "422", "429", "500"):
            assert set(op["responses"][status]["content"]) == {"text/html"}, (
                f"{method.upper()} {path} {status}"
            )
        if method == "post":
            assert "303" in op["responses"]
            assert "application/x-www-form-urlencoded" in op["requestBody"]["content"]
    assert "HTTPValidationError" not in json.dumps(doc)


def test_panel_pages_declare_the_session_cookie_and_forms_the_csrf_field() -> None:
    doc = document(Interface.ADMIN)
    assert doc["components"]["securitySchemes"]["panelSession"]["in"] == "cookie"
    login = doc["paths"]["/login"]
    assert "security" not in login["get"] and "security" not in login["post"]
    assert doc["paths"]["/"]["get"]["security"] == [{"panelSession": []}]
    logout = doc["paths"]["/logout"]["post"]
    assert logout["security"] == [{"panelSession": []}]
    form = logout["requestBody"]["content"]["application/x-www-form-urlencoded"]["schema"]
    assert form["required"] == ["csrf"]
