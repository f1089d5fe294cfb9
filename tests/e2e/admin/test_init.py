"""`webstore init` run as an owner runs it against a running empty `webstore serve --no-catalog`:
the store, its server and its owner in one step, the owner signs in to the panel with the
printed password and finds the go-live page, and the first basket's log-in is allowed back to
the platform's own hosts without any return-host setting."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest

from tests.e2e.conftest import wait_for_port
from tests.support.local_stack import free_port, serving, webstore_tool
from tests.support.panel import http_sign_in

pytestmark = pytest.mark.e2e


def printed(stdout: str, label: str) -> str:
    found = re.search(rf"^  {re.escape(label)}\s+(\S+)$", stdout, re.MULTILINE)
    assert found, stdout
    return found.group(1)


def test_init_starts_an_empty_store_whose_owner_signs_in_and_whose_first_basket_logs_in(
    tmp_path: Path,
) -> None:
    creds_file = tmp_path / "credentials.json"
    ports, admin = (free_port(), free_port()), free_port()
    with serving(*ports, creds_file, "--no-catalog", "--admin-port", str(admin)) as process:
        for port in (*ports, admin):
            wait_for_port(port, process)
        local = json.loads(creds_file.read_text())
        missing = webstore_tool("init", "--local", str(creds_file), "--name", "Fresh Craft")
        assert missing.returncode == 2 and "--currency is required" in missing.stderr
        made = webstore_tool(
            "init",
            "--local",
            str(creds_file),
            "--name",
            "Fresh Craft",
            "--currency",
            "eur",
            "--owner-email",
            "me@fresh.example",
            "--server-name",
            "Survival",
        )
        assert made.returncode == 0, made.stderr
        assert "Store 1 created" in made.stdout
        token, password = printed(made.stdout, "public_token"), printed(made.stdout, "admin_password")
        admin_url = printed(made.stdout, "admin_url")
        assert admin_url == local["admin_url"]
        assert printed(made.stdout, "server 1 secret")

        again = webstore_tool(
            "init",
            "--local",
            str(creds_file),
            "--name",
            "X",
            "--currency",
            "EUR",
            "--owner-email",
            "a@b.example",
        )
        assert again.returncode == 2 and "store 1 exists already" in again.stderr
        bad = webstore_tool(
            "init", "--local", str(creds_file), "--store", "2", "--name", "Y", "--currency", "EURO",
            "--owner-email", "a@b.example",
        )  # fmt: skip
        assert bad.returncode == 2 and "currency" in bad.stderr and bad.stderr.count("\n") == 1

        cookies, _ = http_sign_in(admin_url, "me@fresh.example", password)
        headless = printed(made.stdout, "headless_url")
        assert headless == f"{local['storefront_url']}/api/accounts/{token}"
        with httpx.Client(timeout=10) as http:
            page = http.get(f"{admin_url}/go-live", cookies=cookies)
            assert page.status_code == 200 and headless in page.text and "Survival" in page.text
            # The first basket, sent back to the platform's own shop: no return host to set.
            back = f"{local['shop_url']}/basket"
            created = http.post(f"{headless}/baskets", json={"complete_url": back})
            assert created.status_code == 200, created.text
            ident = created.json()["data"]["ident"]
            links = http.get(f"{headless}/baskets/{ident}/auth", params={"returnUrl": back})
            assert links.status_code == 200, links.text
            elsewhere = http.get(
                f"{headless}/baskets/{ident}/auth", params={"returnUrl": "https://evil.example/"}
            )
            assert elsewhere.status_code == 422
