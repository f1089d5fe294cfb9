"""The local stack, started once per session as a user would start it (`webstore serve`)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"webstore serve exited with {process.returncode}")
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise TimeoutError(f"nothing listens on {port}")


@pytest.fixture(scope="session")
def local_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """Credentials of a running local stack: headless_url, plugin_url, keys (COMPAT names)."""
    creds_file = tmp_path_factory.mktemp("stack") / "credentials.json"
    storefront, operator = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBSTORE_")}
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "infra.cli",
            "serve",
            "--storefront-port",
            str(storefront),
            "--operator-port",
            str(operator),
            "--next-check",
            "2",
            "--credentials-file",
            str(creds_file),
        ],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT}:{ROOT / 'shared'}"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        creds = json.loads(creds_file.read_text())
        creds["process"] = process
        yield creds
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
