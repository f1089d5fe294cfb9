"""docs/go-live.md run as a newcomer runs it, on the local stack (`webstore serve --no-catalog`,
its Stripe calls sent to localstripe): every step that does not need AWS (2 to 7), done as the
doc says and checked as the doc says. The panel's forms are posted over HTTP as its pages have
them; the player's log-in and the Stripe checkout in headless Chromium. Step 1 (deploy) and the
custom domain and DNS need AWS. The test fails when a step's heading changes: update both."""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser

from tests.e2e.admin.test_go_live_walk import STAND_IN, printed, stripe_api
from tests.e2e.conftest import wait_for_port
from tests.support.local_stack import ROOT, free_port, serving, webstore_tool
from tests.support.localstripe import TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, pay_in_page, stripe_client
from tests.support.panel import csrf_of
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e

__all__ = ["stripe_api"]  # the localstripe fixture, shared with the walk

STEPS = (
    "## 2. Create the store and its owner: `webstore init`",
    "## 3. Sign in and set the store up",
    "## 3b. Tax",
    "## 4. Connect Stripe",
    "## 5. Servers",
    "## 6. The shop",
    "## 7. First real purchase, then refund it",
)


def row(html: str, ident: str) -> str:
    """A Go live status line: its class (ok, warn, todo), then its words."""
    found = re.search(rf'<p class="status (\w+)" id="{ident}">(.*?)</p>', html, re.S)
    assert found, html[-4000:]
    return f"{found.group(1)} {found.group(2)}"


def revision(html: str) -> str:
    found = re.search(r'name="revision" value="([0-9]+)"', html)
    assert found, html[-3000:]
    return found.group(1)


def test_a_newcomer_follows_go_live_md_on_the_local_stack(
    tmp_path: Path, stripe_api: str, browser: Browser
) -> None:
    doc = (ROOT / "docs" / "go-live.md").read_text()
    assert all(step in doc for step in STEPS), "docs/go-live.md's steps changed: update this test"
    creds_file = tmp_path / "creds.json"
    storefront, operator, admin = free_port(), free_port(), free_port()
    options = ("--no-catalog", "--admin-port", str(admin), "--stripe-api-base", stripe_api)
    log = tmp_path / "serve.log"
    with (
        log.open("wb") as output,
        serving(
            storefront, operator, creds_file, *options, stdout=output.fileno(), stderr=subprocess.STDOUT
        ) as process,
    ):
        for port in (storefront, operator, admin):
            wait_for_port(port, process)
        local = json.loads(creds_file.read_text())
        wait_for_port(int(local["shop_url"].rsplit(":", 1)[1]), process)

        # 2. `webstore init --local creds.json --name … --currency … --owner-email …`
        init = ("init", "--local", str(creds_file), "--name", "My Server", "--currency", "EUR",
                "--owner-email", "you@example.com", "--server-name", "Survival")  # fmt: skip
        made = webstore_tool(*init)
        assert made.returncode == 0, made.stderr
        assert "Store 1 created" in made.stdout
        for label in (
            "admin_password",
            "public_token",
            "headless_url",
            "checkout_api_key",
            "server 1 secret",
        ):
            assert printed(made.stdout, label)
        again = webstore_tool(*init)
        assert again.returncode == 2 and "exists already" in again.stderr  # "it refuses: the store exists"
        password, headless = printed(made.stdout, "admin_password"), printed(made.stdout, "headless_url")
        server_secret = printed(made.stdout, "server 1 secret")

        panel = httpx.Client(base_url=printed(made.stdout, "admin_url"), timeout=30)
        # 3. Sign in: the first sign-in opens the setup; its four pages, saved.
        signed = panel.post("/login", data={"email": "you@example.com", "password": password})
        assert signed.status_code == 303 and signed.headers["location"] == "/setup", signed.text
        csrf = csrf_of(panel.get("/setup").text)

        def post(page: str, action: str, **fields: str) -> httpx.Response:
            shown = panel.get(page)
            assert shown.status_code == 200, shown.text[-2000:]
            return panel.post(action, data={"csrf": csrf, "revision": revision(shown.text), **fields})

        steps = {
            "category": {"name": "Ranks"},
            "package": {"name": "VIP", "category_id": "1", "price": "4.99", "commands.0.server_id": "1",
                        "commands.0.trigger": "purchase",
                        "commands.0.command": "lp user {username} parent add vip"},
            "server": {"server_id": "1", "name": "Survival"},
            "look": {"primary_color": "#1a5fb4", "hero_text": "Welcome"},
        }  # fmt: skip
        for step, fields in steps.items():
            answer = post(f"/setup?step={step}", f"/setup/{step}", **fields)
            assert answer.status_code == 303, answer.text[-2000:]
        assert answer.headers["location"].startswith("/go-live?done=Setup+done")
        # Check: the package shows on ShopUrl and in GET {headless_url}/categories?includePackages=1.
        listed = httpx.get(f"{headless}/categories", params={"includePackages": "1"}).json()
        assert [p["name"] for c in listed["data"] for p in c["packages"]] == ["VIP"]
        shop = httpx.get(f"{local['shop_url']}/category/1", follow_redirects=True)
        assert shop.status_code == 200 and "VIP" in shop.text, (shop.status_code, shop.text[-1500:])
        # The legal details on Settings: Go live → Legal details is green.
        assert row(panel.get("/go-live").text, "legal-status").startswith("todo Missing: legal name")
        legal = {"name": "My Server", "currency": "EUR", "seller.legal_name": "My Server SAS",
                 "seller.address": "1 rue de la Paix", "seller.country": "FR",
                 "seller.tax_number": "FR12345678901", "terms_url": "https://example.com/terms",
                 "refund_policy_url": "https://example.com/refunds"}  # fmt: skip
        assert post("/settings", "/settings", **legal).status_code == 303
        assert row(panel.get("/go-live").text, "legal-status").startswith(
            "ok Set: invoices name My Server SAS"
        )

        # 3b. Tax: Settings → Tax; Go live → Tax is green.
        tax = {"mode": "exclusive", "calculation": "flat", "rate": "20", "origin_country": "FR",
               "rates": "", "reverse_charge": "on"}  # fmt: skip
        assert post("/settings/tax", "/settings/tax", **tax).status_code == 303
        assert row(panel.get("/go-live").text, "tax-status").startswith("ok Tax is charged")

        # 4. Connect Stripe: the two keys, the webhook secret blank.
        keys = {"publishable_key": TEST_PUBLISHABLE_KEY, "secret_key": TEST_SECRET_KEY}
        saved = post("/go-live", "/settings/gateways", **keys)
        assert saved.status_code == 303 and "registered+in+Stripe" in saved.headers["location"]
        page = panel.get(saved.headers["location"]).text
        assert "Saved: Stripe accepted the secret key (test mode); the webhook endpoint is registered" in page
        assert row(page, "stripe-status").startswith("ok Connected: <strong>test mode</strong>")
        webhook_url = re.search(r'<code id="stripe-webhook-url">([^<]+)</code>', page)
        assert webhook_url
        endpoints = stripe_client(stripe_api).v1.webhook_endpoints.list().data
        assert [e["url"] for e in endpoints] == [webhook_url.group(1)]

        # 5. Servers: the plugin URL and server 1's secret log the plugin in; a rotation.
        plugin = re.search(r'<code id="plugin-url">([^<]+)</code>', page)
        assert plugin and plugin.group(1).startswith(f"http://127.0.0.1:{operator}")
        information = httpx.get(f"{plugin.group(1)}/information", headers={"X-Tebex-Secret": server_secret})
        assert information.status_code == 200 and "Survival" in information.text
        rotated = panel.post("/servers/1/secret", data={"csrf": csrf, "confirm": "1"})
        new_secret = re.search(r'<code id="secret">([^<]+)</code>', rotated.text)
        assert rotated.status_code == 200 and new_secret, rotated.text[-2000:]
        refused = httpx.get(f"{plugin.group(1)}/information", headers={"X-Tebex-Secret": server_secret})
        assert refused.status_code in (401, 403)
        secret = {"X-Tebex-Secret": new_secret.group(1)}
        assert httpx.get(f"{plugin.group(1)}/information", headers=secret).status_code == 200

        # 6. The shop: a basket made for the shop logs in (the platform's hosts are allowed).
        # 7. First purchase with Stripe's test card, then refund it.
        shop_url = local["shop_url"].rstrip("/") + "/"
        host = headless.split("/api/")[0]
        with httpx.Client(timeout=10) as http:
            ident = http.post(
                f"{headless}/baskets", json={"complete_url": shop_url, "complete_auto_redirect": True}
            ).json()["data"]["ident"]
            added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 1, "quantity": 1})
            checkout_link = added.json()["data"]["links"]["checkout"]
            [auth] = http.get(f"{headless}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()
        context = browser.new_context()
        try:
            player = context.new_page()
            player.route(
                "https://js.stripe.com/**",
                lambda route: route.fulfill(
                    status=200, content_type="application/javascript", body=STAND_IN.read_text()
                ),
            )
            player.goto(auth["url"])
            player.get_by_label("Username").fill("Newcomer")
            player.get_by_role("button", name="Continue").click()
            player.wait_for_url(after_log_in(checkout_link), timeout=10_000)  # sent back
            player.wait_for_selector("#payment-element[data-mounted=payment]", timeout=10_000)
            intent = player.evaluate("window.__stripe.calls")[1][1].split("_secret_")[0]
            assert pay_in_page(stripe_api, intent, "4242424242424242") == "succeeded"
            # The checkout links the terms and refund policy set in step 3.
            assert player.locator("#terms").count() == 1 and player.locator("#refund-policy").count() == 1
            player.get_by_role("button", name="Pay").click()
            player.wait_for_url(shop_url, timeout=30_000)
        finally:
            context.close()
        # Check: Payments shows it complete, its command waits, Go live shows Stripe's event.
        [payment] = httpx.get(f"{plugin.group(1)}/payments", headers=secret).json()
        txn = payment["txn_id"]
        assert "<dt>Status</dt><dd>Complete</dd>" in panel.get(f"/payments/{txn}").text
        waiting = panel.get("/servers/1").text.split("<h2>Waiting commands</h2>", 1)[1]
        assert "lp user {username} parent add vip" in waiting
        deadline = time.monotonic() + 30
        while not row(panel.get("/go-live").text, "stripe-last-event").startswith("ok"):
            assert time.monotonic() < deadline, log.read_text()[-3000:]
            time.sleep(1)

        # Refund: it asks first (the amount, the command taken out of the queue), then refunds.
        asked = panel.post(f"/payments/{txn}/refund", data={"csrf": csrf})
        assert asked.status_code == 200 and payment["amount"] in asked.text, asked.text[-3000:]
        assert "lp user {username} parent add vip" in asked.text
        done = panel.post(f"/payments/{txn}/refund", data={"csrf": csrf, "confirm": "yes"})
        assert done.status_code == 303, done.text[-3000:]
        assert "<dt>Status</dt><dd>Refund</dd>" in panel.get(f"/payments/{txn}").text
        refunds = stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent}).data
        assert len(refunds) == 1
        # The plugin had not fetched the purchase: nothing at all in the queue.
        waiting = panel.get("/servers/1").text.split("<h2>Waiting commands</h2>", 1)[1]
        assert "lp user {username} parent add vip" not in waiting
        assert httpx.get(f"{plugin.group(1)}/queue/offline-commands", headers=secret).json()["commands"] == []
