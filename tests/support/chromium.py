"""Debian's Chromium as Playwright drives it here (Playwright cannot download its own browser):
one place for the e2e browser fixture and scripts/screenshots.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import ConsoleMessage, Page

CHROMIUM_PATH = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def console_problems(page: Page) -> list[str]:
    """The page's console problems from now on (the list fills as it browses): a refused script,
    style or form target, or a script error; not a resource that failed to load (an image the
    demo names on example.invalid, unresolvable by design; the browser's favicon request; a
    refused form's status)."""
    problems: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Failed to load resource" in message.text:
            return
        if message.type == "error" or "Content Security Policy" in message.text:
            problems.append(message.text)

    page.on("console", watch)
    return problems
