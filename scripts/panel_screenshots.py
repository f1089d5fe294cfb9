"""Screenshots of every page of the control panel, desktop and mobile, for a reviewer to look at.

    python scripts/panel_screenshots.py                       # into docs/panel/screenshots/
    python scripts/panel_screenshots.py --out /tmp/panel      # or a folder of your choice
    make screenshots                                          # the same, after bootstrapping

Starts the local stack (`webstore serve` on free loopback ports, a fresh state directory, a
webhook receiver on 127.0.0.1), buys the demo's Diamond Sword through the hosted checkout in
Debian's headless Chromium so there is a payment, signs in to the panel as the demo owner and
saves every GET page of the admin interface found in the route table
(tests/support/panel_tour.py: path parameters filled from the demo store and that payment, or
from links the pages show), full page, at desktop (1280x800) and mobile (390x844) size:

    {operationId}-desktop.png, {operationId}-mobile.png

A page whose parameters cannot be filled is listed as skipped. Nothing leaves the machine.
The PNGs are not committed (docs/panel/screenshots/ is git-ignored): they show whatever pages
the checkout has, so run this after pulling.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402
from tests.support.panel_tour import (  # noqa: E402
    LocalPanel,
    PanelPage,
    buy,
    links_script,
    local_panel,
    sign_in,
    walk,
)

DEFAULT_FOLDER = ROOT / "docs" / "panel" / "screenshots"
SIZES = {"desktop": (1280, 800), "mobile": (390, 844)}
PAGE_TIMEOUT_MS = 20_000


def signed_in_page(browser: Browser, panel: LocalPanel, size: str) -> Page:
    width, height = SIZES[size]
    context = browser.new_context(
        viewport={"width": width, "height": height}, device_scale_factor=1, is_mobile=size == "mobile"
    )
    context.set_default_timeout(PAGE_TIMEOUT_MS)
    credentials = panel.credentials
    sign_in(context, panel.admin_url, credentials["admin_email"], credentials["admin_password"])
    return context.new_page()


def screenshots(browser: Browser, panel: LocalPanel, folder: Path) -> tuple[list[Path], list[str]]:
    """Every page at every size: the files written and the lines saying what was skipped."""
    pages = {size: signed_in_page(browser, panel, size) for size in SIZES}
    written: list[Path] = []

    def visit(page: PanelPage, path: str) -> set[str]:
        links: set[str] = set()
        for size, tab in pages.items():
            answer = tab.goto(panel.admin_url + path)
            tab.wait_for_load_state("networkidle")
            status = answer.status if answer else 0
            if status != 200:
                print(f"note: {path} answered {status}", file=sys.stderr)
            target = folder / f"{page.slug}-{size}.png"
            tab.screenshot(path=str(target), full_page=True)
            written.append(target)
            links |= set(tab.evaluate(links_script()))
        return links

    visits = walk(panel.known, visit)
    skipped = [f"skipped {v.page.path} ({v.page.slug}): {v.reason}" for v in visits if v.url_path is None]
    for tab in pages.values():
        tab.context.close()
    return written, skipped


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_FOLDER, help="where the PNGs go")
    args = parser.parse_args()
    folder: Path = args.out
    folder.mkdir(parents=True, exist_ok=True)
    with local_panel() as panel, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        try:
            buy(panel, browser)
            written, skipped = screenshots(browser, panel, folder)
        finally:
            browser.close()
    for path in written:
        print(path)
    for line in skipped:
        print(line)


if __name__ == "__main__":
    main()
