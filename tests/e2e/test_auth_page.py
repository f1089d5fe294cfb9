"""The hosted auth page in headless Chromium: a player logs in to a basket and is sent back.

Two stacks: the local stack (`webstore serve`, a subprocess; the basket is created over HTTP),
and the same storefront app served in this process, where the published `basket.authenticated`
event can be inspected on the in-process bus.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import uvicorn
from playwright.sync_api import Browser, ConsoleMessage

from functions.routes import operations
from functions.runtime import Interface, build_app
from tests.e2e.conftest import ReturnSite, free_port
from tests.integration.storefront.support import ACCOUNT
from tests.support.baskets import seed_basket
from tests.support.demo import DemoStore
from webstore.repo.baskets import BasketRepository
from webstore.repo.users import UserRepository
from webstore.services import local_bus

pytestmark = pytest.mark.e2e


def log_in_through_the_page(browser: Browser, auth_url: str, return_url: str, username: str) -> list[str]:
    """Open the auth link, try a bad name, then a good one; returns what the browser refused
    (Content-Security-Policy violations: an inline style, the form post, the redirect)."""
    context = browser.new_context()
    page = context.new_page()
    problems: list[str] = []

    def watch(message: ConsoleMessage) -> None:
        if "Content Security Policy" in message.text or "Refused" in message.text:
            problems.append(message.text)

    page.on("console", watch)
    try:
        response = page.goto(auth_url)
        assert response is not None and response.status == 200
        field_ = page.get_by_label("Username")
        assert field_.is_visible()

        field_.fill("no")
        page.get_by_role("button", name="Continue").click()
        page.wait_for_load_state()
        assert page.url.split("?")[0] == auth_url.split("?")[0]
        alert = page.get_by_role("alert")
        assert "3 to 16 letters" in alert.inner_text()
        assert page.get_by_label("Username").get_attribute("aria-invalid") == "true"

        page.get_by_label("Username").fill(username)
        page.get_by_role("button", name="Continue").click()
        page.wait_for_url(return_url + ("&" if "?" in return_url else "?") + "success=true", timeout=10_000)
        assert page.get_by_role("heading").inner_text() == "Back at the shop"
    finally:
        context.close()
    return problems


# --- in process: the storefront app on a local port, moto, the in-process bus --------------


@pytest.fixture
def storefront_in_process(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    from webstore import services as services_module

    port = free_port()
    root = f"http://127.0.0.1:{port}"
    monkeypatch.setenv("WEBSTORE_STOREFRONT_URL", root)
    services_module.reset()
    app = build_app(
        Interface.STOREFRONT, [(op.route, op.endpoint) for op in operations(Interface.STOREFRONT)]
    )
    server = uvicorn.Server(
        uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 15
    while not server.started:
        assert time.monotonic() < deadline, "the storefront did not start"
        time.sleep(0.05)
    yield f"{root}/api/accounts/{demo.token}"
    server.should_exit = True
    thread.join(timeout=10)
    services_module.reset()


def test_auth_page_in_chromium_in_process(
    demo: DemoStore, storefront_in_process: str, return_site: ReturnSite, browser: Browser
) -> None:
    basket = seed_basket(demo.table, ACCOUNT, custom={"order": "e2e"})
    bus = local_bus()
    bus.published.clear()

    return_url = return_site.url("/basket?from=auth")
    with httpx.Client(timeout=10) as http:
        links = http.get(
            f"{storefront_in_process}/baskets/{basket.ident}/auth", params={"returnUrl": return_url}
        ).json()
    [link] = links
    assert link["name"] == "Minecraft"

    problems = log_in_through_the_page(browser, link["url"], return_url, "Steve_e2e")
    assert problems == []
    assert return_site.visits == ["/basket?from=auth"]

    stored = BasketRepository(demo.table).get(basket.ident)
    user = UserRepository(demo.table).find("Steve_e2e")
    assert user is not None
    assert (stored.username, stored.username_id) == ("Steve_e2e", user.id)
    [event] = [e for e in bus.published if e.type == "basket.authenticated"]
    assert event.subject["ident"] == basket.ident
    assert event.subject["username_id"] == user.id
    assert event.subject["custom"] == {"order": "e2e"}
    bus.published.clear()


# --- the local stack (webstore serve), everything over HTTP --------------------------------


def test_auth_page_in_chromium_against_the_local_stack(
    local_stack: dict[str, Any], return_site: ReturnSite, browser: Browser
) -> None:
    base = local_stack["headless_url"]
    return_url = return_site.url("/checkout?step=2")
    with httpx.Client(timeout=10) as http:
        created = http.post(f"{base}/baskets", json={"custom": {"order": "e2e-stack"}})
        if created.status_code in (404, 405) and "Basket" not in created.text:
            pytest.skip("createBasket is not routed in this build (it arrives with the baskets work)")
        assert created.status_code == 200, created.text
        ident = created.json()["data"]["ident"]
        [link] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": return_url}).json()

        problems = log_in_through_the_page(browser, link["url"], return_url, "Alex_stack")
        assert problems == []
        assert return_site.visits == ["/checkout?step=2"]

        basket = http.get(f"{base}/baskets/{ident}").json()["data"]
        assert basket["username"] == "Alex_stack"
        assert isinstance(basket["username_id"], int) and basket["username_id"] > 0
        assert basket["custom"] == {"order": "e2e-stack"}
