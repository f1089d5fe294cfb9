"""The local stack over HTTP: what a shop developer gets from the README's run command."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.e2e


def test_credentials_file_has_exactly_the_documented_keys(local_stack: dict[str, Any]) -> None:
    assert set(local_stack) - {"process"} == {
        "headless_url",
        "plugin_url",
        "public_token",
        "webstore_identifier",
        "checkout_api_key",
        "server_secret",
    }
    assert local_stack["headless_url"].endswith("/api/accounts/" + local_stack["public_token"])


def test_storefront_reads_over_http(local_stack: dict[str, Any]) -> None:
    base = local_stack["headless_url"]
    with httpx.Client(timeout=10) as http:
        store = http.get(base)
        assert store.status_code == 200
        assert store.headers["content-type"] == "application/json"
        assert store.json()["data"]["name"] == "Demo Craft"
        categories = http.get(f"{base}/categories", params={"includePackages": 1}).json()["data"]
        assert any(p["ident"] == "pkg_2_10" for c in categories for p in c["packages"] or [])
        assert http.get(base.rsplit("/", 1)[0] + "/1-" + "0" * 32).status_code == 404


def test_openapi_docs_for_both_interfaces(local_stack: dict[str, Any]) -> None:
    storefront_root = local_stack["headless_url"].split("/api/")[0]
    with httpx.Client(timeout=10) as http:
        for root in (storefront_root, local_stack["plugin_url"]):
            assert http.get(f"{root}/docs").status_code == 200
            assert http.get(f"{root}/openapi.json").json()["openapi"].startswith("3.")
