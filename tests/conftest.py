"""Fixtures for every test: AWS under moto, the table, the demo store, Lambda invocation."""

from __future__ import annotations

import base64
import importlib
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlencode

import boto3
import pytest

from infra.embedded import one_call_at_a_time
from webstore import db
from webstore import services as services_module
from webstore.catalog_import import ImportResult, import_catalog, parse_catalog
from webstore.db import Table, create_table
from webstore.services import get_services

if TYPE_CHECKING:
    from functions.declarations import Access

DEMO_CATALOG = Path(__file__).resolve().parent.parent / "shared" / "webstore" / "demo" / "store.json"
TABLE = "webstore-test"

os.environ.update(
    {
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SECURITY_TOKEN": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "WEBSTORE_TABLE_NAME": TABLE,
        "WEBSTORE_REGION": "us-east-1",
        "WEBSTORE_EVENTS": "local",
        "WEBSTORE_WEBHOOK_KEY": "test-webhook-sealing-key",
        "WEBSTORE_STOREFRONT_URL": "https://shop.test",
        "WEBSTORE_OPERATOR_URL": "https://plugin.test",
        "POWERTOOLS_TRACE_DISABLED": "true",
        "POWERTOOLS_METRICS_NAMESPACE": "webstore-tests",
        "POWERTOOLS_SERVICE_NAME": "webstore-tests",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
    }
)


@pytest.fixture(scope="session", autouse=True)
def access_guard() -> Iterator[None]:
    """Every event consumer runs under the access guard wherever a test calls its `handler`
    (HTTP handlers: through `invoke`); side reads (`start_read`) keep the caller's context."""
    # Imported here: the functions' Powertools objects read the environment set above.
    from functions.routes import consumers
    from tests.access_guard import ContextExecutor, enforcing

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(db, "_reads", ContextExecutor(db._reads))
        for each in consumers():
            module = importlib.import_module(each.module)
            guarded = enforcing(module.handler, each.consumer.name, each.consumer.function_access)
            patch.setattr(module, "handler", guarded)
        yield


@pytest.fixture
def aws() -> Iterator[None]:
    from moto import mock_aws

    with mock_aws():
        services_module.reset()
        yield
    services_module.reset()


@pytest.fixture
def table(aws: None) -> Table:
    client = boto3.client("dynamodb", region_name="us-east-1")
    create_table(client, TABLE)
    return Table(client, TABLE)


@dataclass
class DemoStore:
    result: ImportResult
    table: Table

    @property
    def token(self) -> str:
        return self.result.public_token

    @property
    def checkout_key(self) -> str:
        assert self.result.checkout_api_key
        return self.result.checkout_api_key

    @property
    def server_secret(self) -> str:
        secret = self.result.server_secrets[1]
        assert secret
        return secret

    def basic_auth(self) -> dict[str, str]:
        raw = f"{self.token}:{self.checkout_key}".encode()
        return {"authorization": "Basic " + base64.b64encode(raw).decode()}


def demo_catalog_data() -> dict[str, Any]:
    return json.loads(DEMO_CATALOG.read_text())


@pytest.fixture
def demo(table: Table) -> DemoStore:
    return DemoStore(import_catalog(table, parse_catalog(demo_catalog_data())), table)


# --- Lambda invocation with API Gateway HTTP API (v2) events ----------------------------


class LambdaContext:
    function_name = "webstore-test"
    function_version = "$LATEST"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:webstore-test"
    aws_request_id = "test-request"
    log_group_name = "/aws/lambda/webstore-test"
    log_stream_name = "test"

    @staticmethod
    def get_remaining_time_in_millis() -> int:
        return 10_000


def api_event(
    method: str,
    path: str,
    *,
    body: Any = None,
    query: dict[str, str] | None = None,
    headers: dict[str, str] | None = None,
    source_ip: str = "203.0.113.10",
    raw_body: str | None = None,
) -> dict[str, Any]:
    all_headers = {"host": "api.test", "user-agent": "pytest"}
    if body is not None:
        raw_body = json.dumps(body)
        all_headers["content-type"] = "application/json"
    if raw_body is not None:
        all_headers["content-length"] = str(len(raw_body.encode()))
    all_headers.update({k.lower(): v for k, v in (headers or {}).items()})
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": urlencode(query or {}),
        "headers": all_headers,
        "queryStringParameters": query or None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api",
            "domainName": "api.test",
            "domainPrefix": "api",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": source_ip,
                "userAgent": "pytest",
            },
            "requestId": "req",
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": "22/Nov/2026:10:00:00 +0000",
            "timeEpoch": 1795000000000,
        },
        "body": raw_body,
        "isBase64Encoded": False,
    }


@dataclass
class Response:
    status: int
    headers: dict[str, str]
    body: str

    def json(self) -> Any:
        return json.loads(self.body)


Invoke = Callable[..., Response]


@pytest.fixture
def invoke() -> Invoke:
    """invoke(handler, method, path, body=..., query=..., headers=...) -> Response.

    The handler runs under the access guard (tests/access_guard.py): a DynamoDB call or publish
    beyond its route's declared access fails the test. `access=` declares a test-only handler's.
    """

    from tests.access_guard import declared_access, enforced

    def _invoke(
        handler: Callable[..., dict[str, Any]],
        method: str,
        path: str,
        *,
        access: frozenset[Access] | None = None,
        **kwargs: Any,
    ) -> Response:
        declared = declared_access(handler) if access is None else ("test handler", access)
        if declared is None:
            pytest.fail(f"{handler!r} is not in the route table: pass invoke(..., access=...)")
        with enforced(*declared):
            result = handler(api_event(method, path, **kwargs), LambdaContext())
        body = result.get("body") or ""
        if result.get("isBase64Encoded"):
            body = base64.b64decode(body).decode()
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        return Response(result["statusCode"], headers, body)

    return _invoke


@pytest.fixture
def atomic_calls(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each DynamoDB call atomic, as in DynamoDB and the local stack (moto is not thread-safe
    inside one call); threads interleave between calls as concurrent Lambda instances would."""
    client = get_services().table.client
    monkeypatch.setattr(client, "_make_api_call", one_call_at_a_time(client))
