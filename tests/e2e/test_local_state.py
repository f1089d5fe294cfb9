"""Issue 15 item 2: the local stack keeps its data and keys across restarts in its state
directory; `--fresh` starts over. Issue 22: a crash loses nothing that was answered (each write is
journaled and fsynced before its request answers).
`webstore serve` runs as a subprocess, as a user starts it."""

from __future__ import annotations

import json
import signal
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.e2e.conftest import wait_for_port
from tests.support.local_stack import free_port, serving

pytestmark = pytest.mark.e2e


def start(state: Path, creds_file: Path, *options: str) -> Any:
    ports = free_port(), free_port()
    context = serving(*ports, creds_file, "--state-dir", str(state), *options)
    process = context.__enter__()
    wait_for_port(ports[0], process)
    wait_for_port(ports[1], process)
    return context, process, json.loads(creds_file.read_text())


def create_basket(creds: dict[str, Any]) -> str:
    with httpx.Client(timeout=10) as http:
        created = http.post(f"{creds['headless_url']}/baskets", json={"username": "Steve"})
        assert created.status_code == 200, created.text
        ident = str(created.json()["data"]["ident"])
        added = http.post(
            f"{creds['headless_url'].split('/api/')[0]}/api/baskets/{ident}/packages",
            json={"package_id": "pkg_2_10", "quantity": 2},
        )
        assert added.status_code == 200, added.text
        return ident


def basket(creds: dict[str, Any], ident: str) -> httpx.Response:
    with httpx.Client(timeout=10) as http:
        return http.get(f"{creds['headless_url']}/baskets/{ident}")


KEYS = ("public_token", "checkout_api_key", "server_secret", "servers")


def test_a_restart_keeps_keys_and_baskets_and_fresh_starts_over(tmp_path: Path) -> None:
    state, creds_file = tmp_path / "state", tmp_path / "credentials.json"
    context, _, first = start(state, creds_file)
    ident = create_basket(first)
    context.__exit__(None, None, None)  # Ctrl-C: a clean stop
    assert (state / "table.json").exists()
    assert oct((state / "credentials.json").stat().st_mode & 0o777) == "0o600"

    context, _, second = start(state, creds_file)
    try:
        assert {k: second[k] for k in KEYS} == {k: first[k] for k in KEYS}
        assert all(s["secret"] for s in second["servers"])
        kept = basket(second, ident)
        assert kept.status_code == 200
        assert [(p["id"], p["in_basket"]["quantity"]) for p in kept.json()["data"]["packages"]] == [(10, 2)]
        with httpx.Client(timeout=10) as http:  # the kept server secret still works
            info = http.get(
                f"{second['plugin_url']}/information", headers={"X-Tebex-Secret": second["server_secret"]}
            )
        assert info.status_code == 200
    finally:
        context.__exit__(None, None, None)

    context, _, fresh = start(state, creds_file, "--fresh")
    try:
        assert fresh["public_token"] != first["public_token"]
        assert fresh["checkout_api_key"] != first["checkout_api_key"]
        assert basket(fresh, ident).status_code == 404
    finally:
        context.__exit__(None, None, None)


def test_a_kill_right_after_an_answer_loses_nothing_answered(tmp_path: Path) -> None:
    state, creds_file = tmp_path / "state", tmp_path / "credentials.json"
    context, process, first = start(state, creds_file)
    ident = create_basket(first)  # answered: on disk
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=10)
    context.__exit__(None, None, None)

    context, _, second = start(state, creds_file)
    try:
        assert second["public_token"] == first["public_token"]
        assert basket(second, ident).status_code == 200
    finally:
        context.__exit__(None, None, None)
