"""Screenshots of every page of the shop, desktop and phone, for a reviewer to look at.

    python scripts/shop_screenshots.py                      # into docs/shop/screenshots/
    python scripts/shop_screenshots.py --out /tmp/shop      # or a folder of your choice
    make screenshots                                        # the panel's, then these

Starts the local stack (`webstore serve` on free loopback ports, a fresh state directory) and,
in Debian's headless Chromium, saves the shop's pages at desktop (1280x800) and phone (390x844)
size: the home page, a category, a tiered category, a package, the package modal open over its
category, a custom page, the log-in page, the basket with a line, the 404, the gift-card balance
page (the demo's card, and a code refused), the home page in German (the footer's language
switcher), the home page under each header style with a logo (banner, compact, centred) and the
maintenance page (the look set through the panel's Look form):

    {page}-desktop.png, {page}-phone.png

The PNGs are not committed (docs/shop/screenshots/ is git-ignored) except the few docs/shop.md
shows (docs/shop/tour/, copied by hand after a look). Nothing leaves the machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from collections.abc import Mapping  # noqa: E402
from typing import Any  # noqa: E402

from playwright.sync_api import Browser, Page, sync_playwright  # noqa: E402

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402
from tests.support.panel_tour import local_panel  # noqa: E402
from tests.support.shop_look import logo_server, shop_look  # noqa: E402

DEFAULT_FOLDER = ROOT / "docs" / "shop" / "screenshots"
SIZES = {"desktop": (1280, 800), "phone": (390, 844)}
PAGES = {
    "home": "/",
    "category": "/category/items",
    "tiered-category": "/category/ranks",
    "package": "/package/11",
    "custom-page": "/page/rules",
    "login": "/login",
    "not-found": "/nowhere",
    "gift-card": "/gift-card?code=GIFT-0000-0000-0001",
    "gift-card-refused": "/gift-card?code=NO-SUCH-CARD",
}
HEADER_STYLES = {"banner": "", "compact": "compact", "centered": "centered"}  # file name: the form's value
TIMEOUT_MS = 20_000


def shoot(page: Page, target: Path) -> Path:
    page.wait_for_load_state("networkidle")
    page.screenshot(path=str(target), full_page=True)
    return target


def screenshots(browser: Browser, stack: Mapping[str, Any], folder: Path) -> list[Path]:
    shop = str(stack["shop_url"]).rstrip("/")
    written: list[Path] = []
    for size, (width, height) in SIZES.items():
        context = browser.new_context(
            viewport={"width": width, "height": height}, device_scale_factor=1, is_mobile=size == "phone"
        )
        context.set_default_timeout(TIMEOUT_MS)
        page = context.new_page()
        try:
            for name, path in PAGES.items():
                page.goto(shop + path)
                written.append(shoot(page, folder / f"{name}-{size}.png"))
            page.goto(shop + "/category/items")
            page.locator("#package-11").get_by_role("link", name="View").click()
            page.get_by_role("dialog").wait_for(state="visible")
            page.screenshot(path=str(folder / f"package-modal-{size}.png"))  # the viewport: the modal
            written.append(folder / f"package-modal-{size}.png")
            page.keyboard.press("Escape")
            page.goto(shop + "/package/10")
            page.get_by_role("button", name="Add to basket").click()
            page.wait_for_url(shop + "/basket")
            written.append(shoot(page, folder / f"basket-{size}.png"))
            german = context.new_page()  # the same visitor: the switcher's choice is remembered
            german.goto(shop + "/")
            german.get_by_role("navigation", name="Language").get_by_role("link", name="Deutsch").click()
            german.wait_for_url(shop + "/")
            written.append(shoot(german, folder / f"home-de-{size}.png"))
            context.clear_cookies()  # English again, and an empty basket
            with logo_server() as logo:
                for name, style in HEADER_STYLES.items():
                    with shop_look(stack, header_style=style, logo=logo):
                        page.goto(shop + "/")
                        written.append(shoot(page, folder / f"header-{name}-{size}.png"))
            with shop_look(stack, maintenance="on", maintenance_allow="Notch"):
                page.goto(shop + "/")
                written.append(shoot(page, folder / f"maintenance-{size}.png"))
        finally:
            context.close()
    return written


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--out", type=Path, default=DEFAULT_FOLDER, help="where the PNGs go")
    args = parser.parse_args()
    folder: Path = args.out
    folder.mkdir(parents=True, exist_ok=True)
    with local_panel() as stack, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        try:
            written = screenshots(browser, stack.credentials, folder)
        finally:
            browser.close()
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
