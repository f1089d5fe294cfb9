"""A whole purchase with Stripe on the local stack, in headless Chromium: `webstore serve` with a
catalog that has Stripe keys and `--stripe-api-base` pointing at localstripe. Basket → auth →
the Stripe checkout page (Stripe.js replaced by a local stand-in: the real script cannot load
here) → pay → back at the shop → commands queued → refund through the operator interface →
refunded at Stripe once → refund commands queued.

The stand-in checks the page's wiring: Stripe() gets the publishable key, the Payment Element
is created with the PaymentIntent's client secret and mounted, and confirmPayment is called
with the return URL; it then does what Stripe does after a successful confirmation (the test
confirms the intent in localstripe, as Stripe's servers would) and sends the browser to the
return URL with `payment_intent`."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Route

from tests.e2e.conftest import ReturnSite, free_port, wait_for_port
from tests.support.demo import demo_catalog_data
from tests.support.local_stack import serving
from tests.support.localstripe import (
    TEST_PUBLISHABLE_KEY,
    TEST_SECRET_KEY,
    TEST_WEBHOOK_SECRET,
    localstripe,
    pay_in_page,
    stripe_client,
)
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e

STAND_IN = Path(__file__).with_name("stripe_stand_in.js")


@pytest.fixture(scope="module")
def stripe_api() -> Iterator[str]:
    with localstripe() as base:
        yield base


@pytest.fixture(scope="module")
def stripe_stack(tmp_path_factory: pytest.TempPathFactory, stripe_api: str) -> Iterator[dict[str, Any]]:
    folder = tmp_path_factory.mktemp("stripe-stack")
    catalog = demo_catalog_data()
    catalog["gateways"] = {
        "stripe": {
            "publishable_key": TEST_PUBLISHABLE_KEY,
            "secret_key": TEST_SECRET_KEY,
            "webhook_secret": TEST_WEBHOOK_SECRET,
        }
    }
    (folder / "catalog.json").write_text(json.dumps(catalog))
    storefront, operator = free_port(), free_port()
    options = (
        "--catalog",
        str(folder / "catalog.json"),
        "--stripe-api-base",
        stripe_api,
        "--next-check",
        "2",
    )
    creds_file = folder / "credentials.json"
    with serving(
        storefront, operator, creds_file, *options, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    ) as process:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        creds = json.loads(creds_file.read_text())
        # localstripe delivers its own signed events to the printed webhook URL too.
        httpx.post(
            f"{stripe_api}/_config/webhooks/e2e",
            data={"url": creds["stripe_webhook_url"], "secret": TEST_WEBHOOK_SECRET},
        ).raise_for_status()
        yield creds


def offline_commands(http: httpx.Client, plugin: str, secret: dict[str, str]) -> list[str]:
    found = http.get(f"{plugin}/queue/offline-commands", headers=secret)
    assert found.status_code == 200, found.text
    return [c["command"] for c in found.json()["commands"]]


def test_a_player_pays_with_stripe_and_the_operator_refunds_it(
    stripe_stack: dict[str, Any], stripe_api: str, return_site: ReturnSite, browser: Browser
) -> None:
    base = stripe_stack["headless_url"]
    host = base.split("/api/")[0]
    assert stripe_stack["stripe_webhook_url"] == f"{host}/webhooks/stripe/{stripe_stack['public_token']}"
    complete_url = return_site.url("/thanks")
    with httpx.Client(timeout=10) as http:
        ident = http.post(
            f"{base}/baskets",
            json={
                "complete_url": complete_url,
                "cancel_url": return_site.url("/basket"),
                "complete_auto_redirect": True,
            },
        ).json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()

    def stand_in(route: Route) -> None:
        route.fulfill(status=200, content_type="application/javascript", body=STAND_IN.read_text())

    page.route("https://js.stripe.com/**", stand_in)
    try:
        page.goto(auth["url"])
        page.get_by_label("Username").fill("Stripe_e2e")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=10_000)
        content = page.content()
        assert "VIP" in content and TEST_SECRET_KEY not in content and TEST_WEBHOOK_SECRET not in content
        page.wait_for_selector("#payment-element[data-mounted=payment]", timeout=10_000)
        calls = page.evaluate("window.__stripe.calls")
        assert calls[0] == ["Stripe", TEST_PUBLISHABLE_KEY]
        secret = calls[1][1]
        assert calls[1][0] == "elements" and secret.startswith("pi_") and "_secret_" in secret
        assert calls[2:4] == [["create", "payment"], ["mount", "#payment-element"]]
        intent = secret.split("_secret_")[0]
        assert pay_in_page(stripe_api, intent) == "succeeded"  # what Stripe does on confirm
        page.locator("#consent").check()
        page.get_by_role("button", name="Pay").click()
        try:
            page.wait_for_url(complete_url, timeout=30_000)
        except Exception as error:
            raise AssertionError(f"not back at the shop: {page.url}\n{page.content()[:2000]}") from error
    finally:
        context.close()

    time.sleep(1.5)  # localstripe's own `payment_intent.succeeded` arrives a second later: harmless
    secret_header = {"X-Tebex-Secret": stripe_stack["server_secret"]}
    plugin = stripe_stack["plugin_url"]
    with httpx.Client(timeout=10) as http:
        assert http.get(f"{base}/baskets/{ident}").json()["data"]["complete"] is True
        mine = [
            p
            for p in http.get(f"{plugin}/payments", headers=secret_header).json()
            if p["player"]["name"] == "Stripe_e2e"
        ]
        assert (
            len(mine) == 1
            and mine[0]["gateway"] == {"id": 3, "name": "Stripe"}
            and mine[0]["amount"] == "4.99"
        )
        assert "lp user {username} parent add vip" in offline_commands(http, plugin, secret_header)

        txn = mine[0]["txn_id"]
        for _ in range(2):  # the second call refunds nothing more
            refunded = http.put(f"{plugin}/payments/{txn}", json={"status": "refund"}, headers=secret_header)
            assert refunded.status_code == 200, refunded.text
            assert refunded.json()["status"] == "Refund"
        refunds = stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent}).data
        assert [r["amount"] for r in refunds] == [499]
        # The refund's command and the expiry's (a refund ends the subscription): the same text.
        assert (
            offline_commands(http, plugin, secret_header).count("lp user {username} parent remove vip") == 2
        )
