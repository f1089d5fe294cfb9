"""An owner going live on the local stack, in headless Chromium, typing no key or address but
the two Stripe keys: `webstore init` (run as a user runs it) against an empty `webstore serve`
whose Stripe calls go to localstripe → the panel's first sign-in opens the setup, walked to the
end (a category, a package with its command, the server, the shop's look) → Go live with
Stripe red → the publishable and secret keys typed → green, and the webhook endpoint the
platform registered is in localstripe with exactly the events it needs → a player pays a
checkout with Stripe (the addresses read from the Go live page) → localstripe's event reaches
the store through that endpoint, signed with the secret the platform stored, and Go live shows
when it arrived."""

from __future__ import annotations

import json
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, Route

from tests.e2e.conftest import wait_for_port
from tests.support.local_stack import free_port, serving, webstore_tool
from tests.support.localstripe import TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, localstripe, pay_in_page
from webstore.checkout.stripe_setup import STRIPE_EVENTS
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e

STAND_IN = Path(__file__).parents[1] / "stripe_stand_in.js"


def printed(stdout: str, label: str) -> str:
    found = re.search(rf"^  {re.escape(label)}\s+(\S+)$", stdout, re.MULTILINE)
    assert found, stdout
    return found.group(1)


@pytest.fixture(scope="module")
def stripe_api() -> Iterator[str]:
    with localstripe() as base:
        yield base


def status(page: Page, ident: str) -> str:
    """A status line's class (ok, warn, todo) and its text."""
    line = page.locator(f"#{ident}")
    return f"{(line.get_attribute('class') or '').removeprefix('status ')} {line.inner_text()}"


def save_and_continue(page: Page, next_title: str) -> None:
    page.locator("#setup-save").click()
    page.wait_for_load_state()
    assert page.locator("#form-error").count() == 0, page.content()[:3000]
    assert next_title in page.locator("main").inner_text(), page.content()[:3000]


def test_an_owner_goes_from_webstore_init_to_a_stripe_payment_whose_webhook_the_panel_shows(
    tmp_path: Path, stripe_api: str, browser: Browser
) -> None:
    creds_file = tmp_path / "credentials.json"
    storefront, operator, admin = free_port(), free_port(), free_port()
    options = (
        "--no-catalog",
        "--admin-port",
        str(admin),
        "--stripe-api-base",
        stripe_api,
        "--next-check",
        "2",
    )
    log = tmp_path / "serve.log"
    with (
        log.open("wb") as output,
        serving(
            storefront, operator, creds_file, *options, stdout=output.fileno(), stderr=subprocess.STDOUT
        ) as process,
    ):
        for port in (storefront, operator, admin):
            wait_for_port(port, process)
        made = webstore_tool(
            "init", "--local", str(creds_file), "--name", "Fresh Craft", "--currency", "EUR",
            "--owner-email", "me@fresh.example", "--server-name", "Survival",
        )  # fmt: skip
        assert made.returncode == 0, made.stderr
        admin_url, password = printed(made.stdout, "admin_url"), printed(made.stdout, "admin_password")
        shop_port = int(json.loads(creds_file.read_text())["shop_url"].rsplit(":", 1)[1])
        wait_for_port(shop_port, process)

        context = browser.new_context()
        page = context.new_page()
        try:
            # The first sign-in opens the setup.
            page.goto(f"{admin_url}/login")
            page.get_by_label("Email").fill("me@fresh.example")
            page.get_by_label("Password").fill(password)
            page.get_by_role("button", name="Sign in").click()
            page.wait_for_url(f"{admin_url}/setup")
            assert "Step 1 of 4: A first category" in page.locator("main").inner_text()
            page.locator("#f-name").fill("Ranks")
            save_and_continue(page, "Step 2 of 4: A first package")
            page.locator("#f-name").fill("VIP")
            page.locator("#f-price").fill("4.99")
            page.locator('input[name="commands.0.command"]').fill("lp user {username} parent add vip")
            save_and_continue(page, "Step 3 of 4: Your game server")
            assert page.locator("#setup-server-name").input_value() == "Survival"
            save_and_continue(page, "Step 4 of 4: The shop's look")
            page.locator("#primary_color").fill("#1a5fb4")
            page.locator("#setup-save").click()
            page.wait_for_url(re.compile(r".*/go-live\?done=Setup"))

            # Go live: Stripe red, the two keys typed, green.
            assert status(page, "stripe-status").startswith("todo Not connected")
            assert status(page, "stripe-last-event").startswith("todo No event received")
            page.get_by_label("Publishable key").fill(TEST_PUBLISHABLE_KEY)
            page.get_by_label("Secret key").fill(TEST_SECRET_KEY)
            page.get_by_role("button", name="Check with Stripe and save").click()
            page.wait_for_url(re.compile(r".*/go-live\?done=Saved"))
            done = page.locator("main").inner_text()
            assert (
                "Saved: Stripe accepted the secret key (test mode); the webhook endpoint is registered"
                in done
            )
            assert status(page, "stripe-status").startswith("ok Connected: test mode")
            webhook_url = page.locator("#stripe-webhook-url").inner_text().strip()
            headless = page.locator("#headless-url").inner_text().strip()
            shop_url = page.locator("#shop-url").inner_text().strip()
            endpoints = httpx.get(
                f"{stripe_api}/v1/webhook_endpoints", headers={"Authorization": f"Bearer {TEST_SECRET_KEY}"}
            ).json()["data"]
            assert [(e["url"], e["enabled_events"]) for e in endpoints] == [
                (webhook_url, list(STRIPE_EVENTS))
            ]

            # A player buys the package on the store's own addresses and pays with Stripe.
            host = headless.split("/api/")[0]
            complete_url = f"{shop_url.rstrip('/')}/"
            with httpx.Client(timeout=10) as http:
                listed = http.get(f"{headless}/packages").json()
                package = next(p for p in listed["data"] if p["name"] == "VIP")
                ident = http.post(
                    f"{headless}/baskets", json={"complete_url": complete_url, "complete_auto_redirect": True}
                ).json()["data"]["ident"]
                added = http.post(
                    f"{host}/api/baskets/{ident}/packages", json={"package_id": package["id"], "quantity": 1}
                )
                assert added.status_code == 200, added.text
                checkout_link = added.json()["data"]["links"]["checkout"]
                [auth] = http.get(
                    f"{headless}/baskets/{ident}/auth", params={"returnUrl": checkout_link}
                ).json()
            player = context.new_page()
            player.route("https://js.stripe.com/**", _stand_in)  # Stripe.js cannot load here
            player.goto(auth["url"])
            player.get_by_label("Username").fill("Walker")
            player.get_by_role("button", name="Continue").click()
            player.wait_for_url(after_log_in(checkout_link), timeout=10_000)
            player.wait_for_selector("#payment-element[data-mounted=payment]", timeout=10_000)
            secret = player.evaluate("window.__stripe.calls")[1][1]
            assert pay_in_page(stripe_api, secret.split("_secret_")[0]) == "succeeded"
            # A one-off package: no renewal terms to consent to.
            assert player.locator("#consent").count() == 0
            player.get_by_role("button", name="Pay").click()
            player.wait_for_url(complete_url, timeout=30_000)
            with httpx.Client(timeout=10) as http:
                assert http.get(f"{headless}/baskets/{ident}").json()["data"]["complete"] is True

            # localstripe's event reaches the store through the endpoint; Go live shows when.
            deadline = time.monotonic() + 30
            while True:
                page.goto(f"{admin_url}/go-live")
                row = status(page, "stripe-last-event")
                if row.startswith("ok") or time.monotonic() > deadline:
                    break
                time.sleep(1)
            assert row.startswith("ok Last event received from Stripe:"), log.read_text()[-3000:]
            assert re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC", row) and any(
                e in row for e in STRIPE_EVENTS
            )
        finally:
            context.close()


def _stand_in(route: Route) -> None:
    route.fulfill(status=200, content_type="application/javascript", body=STAND_IN.read_text())
