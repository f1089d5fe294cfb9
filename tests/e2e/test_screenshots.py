"""scripts/screenshots.py, run as a reviewer runs it: twelve PNGs, desktop and mobile wide."""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.local_stack import ROOT

pytestmark = pytest.mark.e2e


def png_size(path: Path) -> tuple[int, int]:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    width, height = struct.unpack(">II", header[16:24])
    return width, height


def test_the_script_writes_checkout_and_receipt_screenshots(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "screenshots.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    expected = {
        f"{basket}-{page}-{size}.png"
        for basket in ("plain", "discounts", "subscription")
        for page in ("checkout", "receipt")
        for size in ("desktop", "mobile")
    }
    assert {p.name for p in tmp_path.glob("*.png")} == expected
    for name in expected:
        width, height = png_size(tmp_path / name)
        assert width == (1280 if "desktop" in name else 390), name
        assert height >= (800 if "desktop" in name else 844), name  # full page: at least the viewport
    assert sorted(done.stdout.split()) == sorted(str(tmp_path / name) for name in expected)
