"""Debian's Chromium as Playwright drives it here (Playwright cannot download its own browser):
one place for the e2e browser fixture and scripts/screenshots.py."""

from __future__ import annotations

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
