#!/usr/bin/env python3
"""How long `make serve` takes on a fresh machine: a clean clone, a clean virtualenv, until the
URLs are printed. Twice: with an empty pip cache (a fresh machine), then with the cache the
first run filled (a second checkout on the same machine). Prints both and the virtualenv's size.

    python3 scripts/measure_setup.py [--runs N] [--keep]

Needs network access to PyPI (what a fresh machine needs too). Uses only the standard library,
so it runs before any set-up. Each run clones the committed HEAD of this checkout.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
READY = "Operator:"  # the last URL line `webstore serve` prints
TIMEOUT = 900


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def base_python() -> str:
    """The interpreter a fresh machine would use: not this script's virtualenv, if any."""
    return getattr(sys, "_base_executable", None) or sys.executable


def size_mb(path: Path) -> float:
    total = sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())
    return total / 1e6


def one_run(workdir: Path, cache: Path) -> tuple[float, float]:
    """Seconds from `git clone` to the URLs printed, and the virtualenv's size in MB."""
    clone = workdir / "webstore"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("WEBSTORE_", "VIRTUAL_ENV", "PIP_"))}
    env["PIP_CACHE_DIR"] = str(cache)
    started = time.monotonic()
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(clone)], check=True)
    ports = f"--storefront-port {free_port()} --operator-port {free_port()} --state-dir {workdir / 'state'}"
    process = subprocess.Popen(
        ["make", "--no-print-directory", "serve", f"PYTHON={base_python()}", f"ARGS={ports}"],
        cwd=clone,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,  # one process group: make and the server stop together
    )
    output: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            output.append(line)
            if line.startswith(READY):
                break
            if time.monotonic() - started > TIMEOUT:
                break
        elapsed = time.monotonic() - started
        if not output or not output[-1].startswith(READY):
            raise SystemExit("make serve did not print its URLs:\n" + "".join(output[-40:]))
    finally:
        os.killpg(process.pid, signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
    return elapsed, size_mb(clone / ".venv")


def main() -> None:
    raw = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=raw)
    parser.add_argument("--runs", type=int, default=1, help="runs of each kind (the median is printed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directories")
    args = parser.parse_args()

    top = Path(tempfile.mkdtemp(prefix="webstore-setup-"))
    cache = top / "pip-cache"
    results: dict[str, list[tuple[float, float]]] = {"empty pip cache": [], "warm pip cache": []}
    try:
        for n in range(args.runs):
            shutil.rmtree(cache, ignore_errors=True)
            for kind in results:
                workdir = top / f"{kind.split()[0]}-{n}"
                workdir.mkdir()
                results[kind].append(one_run(workdir, cache))
                print(f"  {kind:16} run {n + 1}: {results[kind][-1][0]:5.1f} s", flush=True)
                if not args.keep:
                    shutil.rmtree(workdir, ignore_errors=True)
    finally:
        if not args.keep:
            shutil.rmtree(top, ignore_errors=True)

    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"`make serve` on a fresh clone ({head.stdout.strip()}), until the URLs are printed")
    print(f"({os.cpu_count()} CPUs, load average {load} at the end):")
    for kind, runs in results.items():
        seconds = sorted(r[0] for r in runs)[len(runs) // 2]
        print(f"  {kind:16} {seconds:5.1f} s   (virtualenv {runs[-1][1]:.0f} MB)")


if __name__ == "__main__":
    main()
