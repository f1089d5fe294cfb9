"""Screenshots of the hosted checkout and receipt, for a reviewer to look at.

    python scripts/screenshots.py                 # PNGs into build/screenshots/ (git-ignored)
    python scripts/screenshots.py /tmp/shots      # or into a folder of your choice

Starts the local stack (`webstore serve` on free loopback ports) with the demo store dressed
up as an owner would (logo, colours, terms and refund policy links, package images, a sale,
8% tax added on top), builds three baskets through the storefront API (a plain one; one with a
sale, two coupons, a creator code, a custom field and a gift card; a monthly subscription),
and, in Debian's headless Chromium driven by Playwright, saves each basket's checkout page,
pays it with the sandbox card, and saves its receipt, at desktop (1280x800) and mobile
(390x844) size:

    {basket}-checkout-{desktop|mobile}.png, {basket}-receipt-{desktop|mobile}.png

Nothing leaves the machine: the catalog's image URLs (https://assets.webstore.test/...) are
answered by the browser itself with small SVGs made here.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from playwright.sync_api import Browser, Page, Route, sync_playwright  # noqa: E402

from tests.support.chromium import CHROMIUM_ARGS, CHROMIUM_PATH  # noqa: E402
from tests.support.local_stack import free_port, serving  # noqa: E402

DEFAULT_FOLDER = ROOT / "build" / "screenshots"
ASSETS = "https://assets.webstore.test"
SIZES = {"desktop": (1280, 800), "mobile": (390, 844)}
SHOP = "http://localhost:3000"

# The images the catalog names, drawn here (colour, label).
IMAGES = {
    "logo": ("#f5a524", "DC"),
    "vip": ("#7b3fe4", "VIP"),
    "mvp": ("#c2185b", "MVP"),
    "sword": ("#2b8a9e", "⚔"),
    "coins": ("#d4a017", "¢"),
    "crate": ("#8d5524", "▣"),
}


def svg(colour: str, label: str) -> bytes:
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" width="112" height="112" viewBox="0 0 112 112">'
        f'<rect width="112" height="112" rx="18" fill="{colour}"/>'
        '<text x="56" y="70" font-family="sans-serif" font-size="40" font-weight="700" fill="#fff"'
        f' text-anchor="middle">{label}</text></svg>'
    ).encode()


def catalog(folder: Path) -> Path:
    """The demo store with an owner's branding and a few more things a checkout shows."""
    data: dict[str, Any] = json.loads((ROOT / "shared/webstore/demo/store.json").read_text())
    data["store"].update(
        {
            "logo": f"{ASSETS}/logo.svg",
            "primary_color": "#2d1b69",
            "accent_color": "#f5a524",
            "terms_url": f"{SHOP}/terms",
            "refund_policy_url": f"{SHOP}/refunds",
            "tax": {"mode": "exclusive", "rate": "8"},
        }
    )
    images = {1: "vip", 2: "mvp", 10: "sword", 11: "coins", 20: "crate"}
    for package in data["packages"]:
        if package["id"] in images:
            package["image"] = f"{ASSETS}/{images[package['id']]}.svg"
    data["webhooks"] = []  # nobody listens here
    path = folder / "catalog.json"
    path.write_text(json.dumps(data))
    return path


@contextmanager
def local_stack(catalog_file: Path) -> Iterator[dict[str, Any]]:
    """`webstore serve` with `catalog_file`; yields its credentials once it answers."""
    with tempfile.TemporaryDirectory() as workdir:
        creds = Path(workdir) / "credentials.json"
        with serving(free_port(), free_port(), creds, "--catalog", str(catalog_file)) as process:
            deadline = time.monotonic() + 90
            while not creds.exists() or not creds.read_text().strip():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("the local stack did not start")
                time.sleep(0.2)
            credentials: dict[str, Any] = json.loads(creds.read_text())
            while True:
                try:
                    httpx.get(credentials["headless_url"], timeout=2)
                    break
                except httpx.TransportError:
                    if time.monotonic() > deadline:
                        raise SystemExit("the local stack did not answer") from None
                    time.sleep(0.2)
            yield credentials


@dataclass(frozen=True)
class Basket:
    name: str
    checkout_url: str


def build_baskets(headless_url: str) -> list[Basket]:
    """Three baskets as a shop makes them through the storefront API."""
    host = headless_url.split("/api/")[0]

    def post(http: httpx.Client, url: str, body: dict[str, Any]) -> dict[str, Any]:
        answer = http.post(url, json=body)
        if answer.status_code != 200:
            raise SystemExit(f"POST {url} answered {answer.status_code}: {answer.text}")
        body: dict[str, Any] = answer.json()
        return body.get("data", body)  # the code routes answer {success, message}

    def basket(http: httpx.Client, username: str, packages: list[dict[str, Any]]) -> tuple[str, str]:
        created = post(
            http,
            f"{headless_url}/baskets",
            {"username": username, "complete_url": f"{SHOP}/thanks", "cancel_url": f"{SHOP}/basket"},
        )
        ident, data = created["ident"], created
        for package in packages:
            data = post(http, f"{host}/api/baskets/{ident}/packages", package)
        return ident, data["links"]["checkout"]

    made = []
    with httpx.Client(timeout=15) as http:
        _, link = basket(
            http, "Alex_Builder", [{"package_id": 10, "quantity": 1}, {"package_id": 12, "quantity": 1}]
        )
        made.append(Basket("plain", link))

        ident, link = basket(
            http,
            "Steve_Miner",
            [
                {"package_id": 10, "quantity": 2},
                {"package_id": 20, "quantity": 3},
                {"package_id": 13, "quantity": 1, "variable_data": {"note": "For the <b>base</b> fund"}},
            ],
        )
        codes = f"{headless_url}/baskets/{ident}"
        post(http, f"{codes}/coupons", {"coupon_code": "SWORD1"})
        post(http, f"{codes}/coupons", {"coupon_code": "WELCOME10"})
        post(http, f"{codes}/creator-codes", {"creator_code": "STEVE"})
        post(http, f"{codes}/giftcards", {"card_number": "GIFT-0000-0000-0001"})
        made.append(Basket("discounts", link))

        _, link = basket(http, "Vip_Player", [{"package_id": 1, "quantity": 1}])
        made.append(Basket("subscription", link))
    return made


def serve_assets(route: Route) -> None:
    name = route.request.url.rsplit("/", 1)[-1].removesuffix(".svg")
    colour, label = IMAGES.get(name, ("#888888", "?"))
    route.fulfill(status=200, content_type="image/svg+xml", body=svg(colour, label))


def snapshot(browser: Browser, url: str, size: str, path: Path) -> None:
    width, height = SIZES[size]
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    context.route(f"{ASSETS}/**", serve_assets)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(path), full_page=True)
    finally:
        context.close()


def pay(browser: Browser, url: str) -> str:
    """Pay on the checkout page with the sandbox card; the receipt's URL."""
    context = browser.new_context()
    context.route(f"{ASSETS}/**", serve_assets)
    try:
        page: Page = context.new_page()
        page.goto(url)
        consent = page.locator("input[name=subscription_consent]")
        if consent.count():
            consent.check()
        page.get_by_label("Email for your receipt").fill("player@example.com")
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url("**/receipt", timeout=30_000)
        return page.url
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folder", nargs="?", type=Path, default=DEFAULT_FOLDER, help="where the PNGs go")
    args = parser.parse_args()
    folder: Path = args.folder
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    with tempfile.TemporaryDirectory() as workdir, local_stack(catalog(Path(workdir))) as credentials:
        baskets = build_baskets(credentials["headless_url"])
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
            try:
                for basket in baskets:
                    for size in SIZES:
                        path = folder / f"{basket.name}-checkout-{size}.png"
                        snapshot(browser, basket.checkout_url, size, path)
                        written.append(path)
                    receipt = pay(browser, basket.checkout_url)
                    for size in SIZES:
                        path = folder / f"{basket.name}-receipt-{size}.png"
                        snapshot(browser, receipt, size, path)
                        written.append(path)
            finally:
                browser.close()
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
