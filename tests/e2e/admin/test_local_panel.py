"""Issue 16: `webstore serve` serves the control panel on its own port with the demo store's
owner (`admin_url`, `admin_email`, `admin_password` in the credentials file), kept across
restarts with the state directory; `webstore admin create-owner --local` adds another owner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import wait_for_port
from tests.support.local_stack import free_port, serving, webstore_tool
from tests.support.panel import http_sign_in

pytestmark = pytest.mark.e2e


def start(state: Path, creds_file: Path, *options: str) -> tuple[Any, dict[str, Any]]:
    ports = free_port(), free_port()
    admin = free_port()
    context = serving(*ports, creds_file, "--state-dir", str(state), "--admin-port", str(admin), *options)
    process = context.__enter__()
    for port in (*ports, admin):
        wait_for_port(port, process)
    return context, json.loads(creds_file.read_text())


def test_the_panel_is_served_with_the_demo_owner_kept_across_restarts(tmp_path: Path) -> None:
    state, creds_file = tmp_path / "state", tmp_path / "credentials.json"
    context, first = start(state, creds_file)
    try:
        assert first["admin_url"].startswith("http://127.0.0.1:")
        assert first["admin_email"] == "owner@example.com" and len(first["admin_password"]) >= 16
        cookies, csrf = http_sign_in(first["admin_url"], first["admin_email"], first["admin_password"])
        assert csrf
        with httpx.Client(base_url=first["admin_url"], cookies=cookies, timeout=10) as http:
            home = http.get("/")
            assert home.status_code == 200 and "Sign in" not in home.text
            assert http.get("/static/htmx.min.js").status_code == 200
            refused = http.post("/logout", data={"csrf": "wrong"})
            assert refused.status_code == 403
            assert http.get("/").status_code == 200  # the refused logout did nothing
        with httpx.Client(base_url=first["admin_url"], timeout=10) as http:
            wrong = http.post("/login", data={"email": first["admin_email"], "password": "nope nope nope"})
            assert wrong.status_code == 401
        # Another owner, from the tools' side: its password printed once.
        added = webstore_tool(
            "admin",
            "create-owner",
            "--store",
            "1",
            "--email",
            "second@example.com",
            "--local",
            str(creds_file),
        )
        assert added.returncode == 0, added.stderr
        password = re.search(r"admin_password\s+(\S+)", added.stdout)
        assert password, added.stdout
        http_sign_in(first["admin_url"], "second@example.com", password.group(1))
        again = webstore_tool(
            "admin",
            "create-owner",
            "--store",
            "1",
            "--email",
            "second@example.com",
            "--local",
            str(creds_file),
        )
        assert again.returncode == 2 and again.stderr.count("\n") == 1
        assert "second@example.com already has a staff account" in again.stderr
        missing = webstore_tool(
            "admin", "create-owner", "--store", "99", "--email", "x@example.com", "--local", str(creds_file)
        )
        assert missing.returncode == 2 and "Store not found" in missing.stderr
    finally:
        context.__exit__(None, None, None)

    context, second = start(state, creds_file)
    try:
        assert second["admin_password"] == first["admin_password"]
        http_sign_in(second["admin_url"], second["admin_email"], second["admin_password"])
    finally:
        context.__exit__(None, None, None)

    context, fresh = start(state, creds_file, "--fresh")
    try:
        assert fresh["admin_password"] != first["admin_password"]
        http_sign_in(fresh["admin_url"], fresh["admin_email"], fresh["admin_password"])
    finally:
        context.__exit__(None, None, None)
