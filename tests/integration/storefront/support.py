"""Helpers of the storefront tests: paths, credentials, basket calls, error bodies."""

from __future__ import annotations

import base64
from typing import Any

from functions.storefront import add_basket_package, create_basket
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response

ACCOUNT = 1


def basic(username: str, password: str) -> dict[str, str]:
    return {"authorization": "Basic " + base64.b64encode(f"{username}:{password}".encode()).decode()}


def base(demo: DemoStore) -> str:
    return f"/api/accounts/{demo.token}"


def create(demo: DemoStore, invoke: Invoke, **body: Any) -> dict[str, Any]:
    response = invoke(create_basket.handler, "POST", base(demo) + "/baskets", body=body)
    assert response.status == 200, response.body
    data: dict[str, Any] = response.json()["data"]
    return data


def add(invoke: Invoke, ident: str, prefix: str = "/api", **body: Any) -> Response:
    return invoke(add_basket_package.handler, "POST", f"{prefix}/baskets/{ident}/packages", body=body)


def assert_error(response: Response, status: int, field: str | None = None, detail: str = "") -> None:
    assert response.status == status, response.body
    body = response.json()
    assert body["status"] == status
    assert detail in body["detail"]
    if field is not None:
        assert [f["field"] for f in body["field_details"]] == [field], body
