"""A JSON body that cannot be read says why, in each interface's error shape (issue 15.12):
sent without `Content-Type: application/json` -> 415 "Send the body as JSON with Content-Type:
application/json"; not JSON -> 400 naming the line and column. Through the real handlers."""

from __future__ import annotations

import pytest

from functions.operator import create_ban, create_coupon
from functions.storefront import apply_coupon
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.json_body import BOM

SEND_JSON = "Send the body as JSON with Content-Type: application/json"


def coupon(invoke: Invoke, demo: DemoStore, raw: str, headers: dict[str, str] | None = None) -> Response:
    path = f"/api/accounts/{demo.token}/baskets/1-nobasket/coupons"
    return invoke(apply_coupon.handler, "POST", path, raw_body=raw, headers=headers)


def ban(invoke: Invoke, demo: DemoStore, raw: str, headers: dict[str, str] | None = None) -> Response:
    secret = {"X-Tebex-Secret": demo.server_secret}
    return invoke(create_ban.handler, "POST", "/bans", raw_body=raw, headers={**secret, **(headers or {})})


def assert_storefront(response: Response, status: int, detail: str) -> None:
    assert response.status == status, response.body
    body = response.json()
    assert body["status"] == status
    assert body["detail"] == detail
    assert body["field_details"] == [{"field": "body", "message": detail}]
    assert response.headers["content-type"] == "application/json"


def assert_operator(response: Response, status: int, detail: str) -> None:
    assert response.status == status, response.body
    assert response.json() == {"error_code": status, "error_message": detail}


@pytest.mark.parametrize("content_type", [None, "text/plain", "application/x-www-form-urlencoded"])
def test_a_body_without_the_json_content_type_is_a_415_that_says_what_to_send(
    demo: DemoStore, invoke: Invoke, content_type: str | None
) -> None:
    headers = {"content-type": content_type} if content_type else None
    assert_storefront(coupon(invoke, demo, '{"coupon_code": "SAVE10"}', headers), 415, SEND_JSON)
    assert_operator(ban(invoke, demo, '{"user": "Notch"}', headers), 415, SEND_JSON)


@pytest.mark.parametrize(
    ("raw", "where"),
    [
        ('{"coupon_code": SAVE10}', "line 1 column 17: Expecting value"),
        ('{"coupon_code": "SAVE10"', "line 1 column 25: Expecting ',' delimiter"),
        (
            '{\n  "coupon_code": "SAVE10",\n  oops\n}',
            "line 3 column 3: Expecting property name enclosed in double quotes",
        ),
    ],
    ids=["bare-word", "unterminated", "third-line"],
)
def test_malformed_json_is_a_400_naming_line_and_column(
    demo: DemoStore, invoke: Invoke, raw: str, where: str
) -> None:
    json_headers = {"content-type": "application/json"}
    detail = f"The body is not valid JSON at {where}"
    assert_storefront(coupon(invoke, demo, raw, json_headers), 400, detail)
    assert_operator(ban(invoke, demo, raw, json_headers), 400, detail)


def test_a_json_content_type_with_parameters_is_still_json(demo: DemoStore, invoke: Invoke) -> None:
    """`application/json; charset=utf-8` and `+json` types are read as JSON: a field error, not a 415."""
    for content_type in ("application/json; charset=utf-8", "application/merge-patch+json"):
        response = ban(invoke, demo, '{"user": 5}', {"content-type": content_type})
        assert response.status == 422, response.body
        assert "user" in response.json()["error_message"]


def test_a_byte_order_mark_is_a_400_that_names_it(demo: DemoStore, invoke: Invoke) -> None:
    """Python's reader would drop the mark silently; the body is refused the same everywhere."""
    json_headers = {"content-type": "application/json"}
    detail = "The body is not valid JSON at line 1 column 1: " + BOM
    assert_storefront(coupon(invoke, demo, '\ufeff{"coupon_code": "SAVE10"}', json_headers), 400, detail)
    assert_operator(ban(invoke, demo, '\ufeff{"user": "Notch"}', json_headers), 400, detail)


def test_a_key_given_twice_is_a_400_that_names_the_key_and_where(demo: DemoStore, invoke: Invoke) -> None:
    """Python keeps the last value, other parsers the first: the request means nothing certain."""
    json_headers = {"content-type": "application/json"}
    raw = '{"coupon_code": "SAVE10",\n "coupon_code": "FREE"}'
    detail = (
        'The body is not valid JSON at line 2 column 2: the key "coupon_code" appears twice in one object'
    )
    assert_storefront(coupon(invoke, demo, raw, json_headers), 400, detail)
    nested = '{"user": "Notch", "extra": {"a": 1, "a": 2}}'
    response = ban(invoke, demo, nested, json_headers)
    assert response.status == 400 and 'the key "a" appears twice' in response.json()["error_message"]


@pytest.mark.parametrize("raw", ['\ufeff{"code": "X", "effective_on": "cart"}', '{"code": "X", "code": "Y"}'])
def test_the_plugins_parsers_refuse_them_too(demo: DemoStore, invoke: Invoke, raw: str) -> None:
    """Bodies the operator reads itself (JSON or the legacy plugin's form) go through the same reader."""
    secret = {"X-Tebex-Secret": demo.server_secret, "content-type": "application/json"}
    response = invoke(create_coupon.handler, "POST", "/coupons", raw_body=raw, headers=secret)
    assert response.status == 422, response.body
    message = response.json()["error_message"]
    assert "byte-order mark" in message or 'the key "code" appears twice' in message
