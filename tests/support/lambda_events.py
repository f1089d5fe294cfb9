"""Lambda invocation as API Gateway HTTP API (v2) delivers it: the event, the context, and the
handler's result read back as a response."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode


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
    query: dict[str, str] | list[tuple[str, str]] | None = None,
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
    pairs = list(query.items()) if isinstance(query, dict) else list(query or [])
    parameters: dict[str, str] = {}
    for name, value in pairs:  # API Gateway joins a repeated parameter's values with commas
        parameters[name] = f"{parameters[name]},{value}" if name in parameters else value
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": urlencode(pairs),
        "headers": all_headers,
        "queryStringParameters": parameters or None,
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
    # `Set-Cookie` values (API Gateway v2 carries them apart from the headers).
    cookies: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.body)

    @classmethod
    def of(cls, result: dict[str, Any]) -> Response:
        """The handler's API Gateway v2 result as a response."""
        body = result.get("body") or ""
        if result.get("isBase64Encoded"):
            body = base64.b64decode(body).decode()
        headers = {k.lower(): v for k, v in (result.get("headers") or {}).items()}
        return cls(result["statusCode"], headers, body, list(result.get("cookies") or []))
