"""Issue 15 item 10: every operation of both OpenAPI documents has a description, a tag and
examples, and every example is valid against the schema it illustrates (functions/openapi_examples.py)."""

from __future__ import annotations

from typing import Any

import jsonschema
import pytest

from functions.declarations import Interface
from functions.routes import operations
from functions.runtime import build_app

INTERFACES = [Interface.STOREFRONT, Interface.OPERATOR]


def document(interface: Interface) -> dict[str, Any]:
    return build_app(interface, [(op.route, op.endpoint) for op in operations(interface)]).openapi()


def each_operation(doc: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{method.upper()} {path}", op) for path, item in doc["paths"].items() for method, op in item.items()
    ]


def check(doc: dict[str, Any], schema: dict[str, Any], example: Any, where: str) -> None:
    validator = jsonschema.Draft202012Validator({**schema, "components": doc["components"]})
    errors = [f"{where}: {e.message}" for e in validator.iter_errors(example)]
    assert not errors, errors


@pytest.mark.parametrize("interface", INTERFACES)
def test_every_operation_has_a_description_and_a_tag(interface: Interface) -> None:
    doc = document(interface)
    missing = [
        name
        for name, op in each_operation(doc)
        if not op.get("description") or not op.get("tags") or not op.get("summary")
    ]
    assert not missing
    assert {t["name"] for t in doc["tags"]} == {tag for _, op in each_operation(doc) for tag in op["tags"]}
    for _, op in each_operation(doc):
        assert not op["description"].startswith(("GET ", "POST ", "PUT ", "PATCH ", "DELETE "))


@pytest.mark.parametrize("interface", INTERFACES)
def test_every_operation_has_examples_and_each_is_valid(interface: Interface) -> None:
    doc = document(interface)
    without = []
    for name, op in each_operation(doc):
        examples = 0
        for parameter in op.get("parameters", []):
            assert "example" in parameter, f"{name}: parameter {parameter['name']} has no example"
            check(doc, parameter["schema"], parameter["example"], f"{name} {parameter['name']}")
            examples += 1
        body = op.get("requestBody", {}).get("content", {}).get("application/json")
        if body is not None:
            assert "example" in body, f"{name}: its request body has no example"
            check(doc, body["schema"], body["example"], f"{name} body")
            examples += 1
        for status, response in op["responses"].items():
            content = response.get("content", {}).get("application/json", {})
            if "example" in content:
                check(doc, content["schema"], content["example"], f"{name} {status}")
                examples += 1
        if not examples:
            without.append(name)
    assert not without, f"operations without any example: {without}"
