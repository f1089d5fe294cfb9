"""`webstore serve` started as a user would start it, on free loopback ports: one starter for
the e2e fixtures and scripts/load_local.py; and the `webstore` tools run against it."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def webstore_tool(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """A `webstore` tool run as a user runs it, from a shell with no AWS or WEBSTORE_ variables
    (with `--local <credentials file>`, the file is all it needs)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "WEBSTORE_"))}
    env["PYTHONPATH"] = f"{ROOT}:{ROOT / 'shared'}"
    return subprocess.run(
        [sys.executable, "-m", "infra.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(
    storefront_port: int,
    operator_port: int,
    credentials_file: Path,
    *options: str,
    stdout: int = subprocess.DEVNULL,
    stderr: int = subprocess.DEVNULL,
) -> Iterator[subprocess.Popen[bytes]]:
    """The running `serve` process (without the caller's WEBSTORE_ variables); stopped with
    Ctrl-C on exit, killed if it does not stop within 15 s. Its state directory is a fresh
    temporary one unless `--state-dir` is among the options (never the checkout's .webstore/);
    the control panel and the shop listen on free ports unless `--admin-port` or `--shop-port` is
    among them (their URLs are the credentials file's `admin_url` and `shop_url`)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("WEBSTORE_")}
    with contextlib.ExitStack() as stack:
        if "--admin-port" not in options:
            options = (*options, "--admin-port", str(free_port()))
        if "--shop-port" not in options:
            options = (*options, "--shop-port", str(free_port()))
        if "--state-dir" not in options:
            options = (*options, "--state-dir", stack.enter_context(tempfile.TemporaryDirectory()))
        yield stack.enter_context(
            _serve(storefront_port, operator_port, credentials_file, env, options, stdout, stderr)
        )


@contextmanager
def _serve(
    storefront_port: int,
    operator_port: int,
    credentials_file: Path,
    env: dict[str, str],
    options: tuple[str, ...],
    stdout: int,
    stderr: int,
) -> Iterator[subprocess.Popen[bytes]]:
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "infra.cli",
            "serve",
            "--storefront-port",
            str(storefront_port),
            "--operator-port",
            str(operator_port),
            "--credentials-file",
            str(credentials_file),
            *options,
        ],
        cwd=ROOT,
        env={**env, "PYTHONPATH": f"{ROOT}:{ROOT / 'shared'}"},
        stdout=stdout,
        stderr=stderr,
    )
    try:
        yield process
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
