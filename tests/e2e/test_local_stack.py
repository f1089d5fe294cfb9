"""The local stack over HTTP: what a shop developer gets from the README's run command."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import ROOT, free_port

pytestmark = pytest.mark.e2e


def test_credentials_file_has_exactly_the_documented_keys(local_stack: dict[str, Any]) -> None:
    assert set(local_stack) - {"process"} == {
        # The players' shop (README; docs/shop.md), written first.
        "shop_url",
        "headless_url",
        "plugin_url",
        "public_token",
        "webstore_identifier",
        "checkout_api_key",
        "server_secret",
        "servers",
        # The control panel (README; docs/panel.md): its URL and the demo store's owner.
        "admin_url",
        "admin_email",
        "admin_password",
        # What the tools need (`--local`): tests/e2e/test_local_tools.py.
        "dynamodb_endpoint",
        "region",
        "table",
        "aws_access_key_id",
        "aws_secret_access_key",
        "storefront_url",
        "operator_url",
        "webhook_key",
        "mail",  # serve's e-mail transport, for the clock's e-mails (docs/mail.md)
        "discord",  # serve's Discord (--discord-base-url), for the clock's role changes
    }
    assert local_stack["headless_url"].endswith("/api/accounts/" + local_stack["public_token"])
    assert local_stack["server_secret"] == local_stack["servers"][0]["secret"]
    assert next(iter(local_stack)) == "shop_url"  # the file names the shop first


def test_the_shop_is_the_demo_stores_site(local_stack: dict[str, Any]) -> None:
    """The shop's home over HTTP, and the demo store's `webstore_url` (the receipt's "Visit the
    store", the operator interface's store domain) is the shop wherever its port is."""
    with httpx.Client(timeout=10) as http:
        home = http.get(local_stack["shop_url"])
        assert home.status_code == 200 and '<h1 id="hero-title">Demo Craft</h1>' in home.text
        store = http.get(local_stack["headless_url"]).json()["data"]
        assert store["webstore_url"] == local_stack["shop_url"]


def test_every_demo_server_can_be_polled_with_its_own_secret(local_stack: dict[str, Any]) -> None:
    servers = local_stack["servers"]
    assert [(s["id"], s["name"]) for s in servers] == [(1, "Survival"), (2, "Creative")]
    assert len({s["secret"] for s in servers}) == 2
    with httpx.Client(timeout=10) as http:
        for server in servers:
            answer = http.get(
                f"{local_stack['plugin_url']}/information", headers={"X-Tebex-Secret": server["secret"]}
            )
            assert answer.status_code == 200
            assert answer.json()["server"] == {"id": server["id"], "name": server["name"]}


@pytest.fixture
def taken_port() -> Iterator[int]:
    """A port something else already listens on."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


@pytest.mark.parametrize("option", ["--storefront-port", "--operator-port", "--shop-port"])
def test_a_busy_port_is_one_line_and_a_failure_before_any_key(
    taken_port: int, option: str, tmp_path: Any
) -> None:
    ports = {
        "--storefront-port": free_port(),
        "--operator-port": free_port(),
        "--admin-port": free_port(),
        option: taken_port,
    }
    creds_file = tmp_path / "credentials.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBSTORE_")}
    finished = subprocess.run(
        [sys.executable, "-m", "infra.cli", "serve", "--credentials-file", str(creds_file)]
        + [str(part) for pair in ports.items() for part in pair],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT}:{ROOT / 'shared'}"},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert finished.returncode != 0
    assert finished.stdout == ""
    [line] = finished.stderr.splitlines()
    assert str(taken_port) in line and option in line and "in use" in line
    assert "Traceback" not in finished.stderr
    assert "secret" not in finished.stderr and "key" not in finished.stderr
    assert not creds_file.exists()


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
