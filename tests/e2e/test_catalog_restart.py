"""Issue 21 item 5: the catalog file and the panel never destroy each other. `webstore serve`
restarted on the same state directory after panel edits keeps them (the file is imported again
only when it changed), a server made in the panel keeps its secret and its plugin is served; a
changed file over panel edits stops with the difference, `--force` applies it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import wait_for_port
from tests.support.demo import demo_catalog_data
from tests.support.forms import form_fields
from tests.support.local_stack import ROOT, free_port, serving
from tests.support.panel import http_sign_in

pytestmark = pytest.mark.e2e


def start(state: Path, creds_file: Path, catalog: Path, *options: str) -> tuple[Any, dict[str, Any]]:
    ports = free_port(), free_port()
    context = serving(*ports, creds_file, "--state-dir", str(state), "--catalog", str(catalog), *options)
    process = context.__enter__()
    wait_for_port(ports[0], process)
    wait_for_port(ports[1], process)
    creds = json.loads(creds_file.read_text())
    wait_for_port(int(creds["admin_url"].rsplit(":", 1)[1]), process)
    return context, creds


def package_price(creds: dict[str, Any], secret: str, package_id: int) -> float:
    with httpx.Client(timeout=10) as http:
        got = http.get(f"{creds['plugin_url']}/package/{package_id}", headers={"X-Tebex-Secret": secret})
        assert got.status_code == 200, got.text
        return float(got.json()["price"])


def test_a_restart_keeps_panel_edits_and_a_panel_servers_secret(tmp_path: Path) -> None:
    state, creds_file, catalog = tmp_path / "state", tmp_path / "credentials.json", tmp_path / "store.json"
    catalog.write_text(json.dumps(demo_catalog_data()))
    context, creds = start(state, creds_file, catalog)
    try:
        cookies, csrf = http_sign_in(creds["admin_url"], creds["admin_email"], creds["admin_password"])
        with httpx.Client(base_url=creds["admin_url"], cookies=cookies, timeout=10) as panel:
            made = panel.post("/servers", data={"csrf": csrf, "name": "Skyblock"})
            assert made.status_code == 200, made.text
            panel_secret = re.search(r'<code id="secret">([^<]+)</code>', made.text)
            assert panel_secret
            fields = form_fields(panel.get("/catalog/packages/10").text, form_class="catalog-form")
            saved = panel.post("/catalog/packages/10", data={**fields, "price": "6.66"})
            assert saved.status_code == 303, saved.text
        assert package_price(creds, creds["server_secret"], 10) == 6.66
    finally:
        context.__exit__(None, None, None)

    context, again = start(state, creds_file, catalog)
    try:
        assert again["server_secret"] == creds["server_secret"]
        assert package_price(again, panel_secret.group(1), 10) == 6.66  # the panel's server and price kept
    finally:
        context.__exit__(None, None, None)

    # The file changed since its last import, and the panel changed the store since: refused.
    changed = demo_catalog_data()
    next(p for p in changed["packages"] if p["id"] == 11)["name"] = "Renamed in the file"
    catalog.write_text(json.dumps(changed))
    ports = [str(free_port()) for _ in range(3)]
    refused = subprocess.run(
        [
            str(ROOT / ".venv/bin/python"), "-m", "infra.cli", "serve", "--state-dir", str(state),
            "--catalog", str(catalog), "--storefront-port", ports[0], "--operator-port", ports[1],
            "--admin-port", ports[2],
        ],
        cwd=ROOT, env={"PYTHONPATH": f"{ROOT}:{ROOT / 'shared'}", "PATH": "/usr/bin:/bin"},
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert refused.returncode == 2, refused.stderr
    assert "Importing it would: ~2 packages" in refused.stderr
    assert '~ package 10 "Diamond Sword": price: "6.66" → ' in refused.stderr
    assert "--force" in refused.stderr

    context, forced = start(state, creds_file, catalog, "--force")
    try:
        assert package_price(forced, forced["server_secret"], 10) != 6.66
        with httpx.Client(timeout=10) as http:  # --force removes what the file lacks: the panel's server
            gone = http.get(
                f"{forced['plugin_url']}/information", headers={"X-Tebex-Secret": panel_secret.group(1)}
            )
        assert gone.status_code in (401, 403)
    finally:
        context.__exit__(None, None, None)
