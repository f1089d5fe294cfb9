"""Sign-in through Steam in headless Chromium (issue 27): a Rust store's auth page → Steam (the
loopback OpenID stand-in, which signs the player in at once) → back with the Steam64 id on the
basket → the checkout page → pay → the plugin's queue has the command for that id; the same
assertion replayed, or tampered with, is refused. The storefront app in this process (moto)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from urllib.parse import parse_qsl, urlencode, urlsplit

import httpx
import pytest
from playwright.sync_api import Browser

from functions.operator import get_due_players
from tests.e2e.conftest import ReturnSite
from tests.e2e.test_auth_page import storefront_in_process  # noqa: F401 (a fixture)
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_steam_sign_in import STEAM_ID
from tests.support.demo import DemoStore
from tests.support.invocation import Response, invoke
from tests.support.steam_openid import StandInSteam, running_steam
from webstore import keys
from webstore.repo.baskets import BasketRepository
from webstore.storefront.return_urls import after_log_in

pytestmark = pytest.mark.e2e


@pytest.fixture
def steam_site(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInSteam]:
    """The demo store as a Rust store, its players signing in on the stand-in as STEAM_ID."""
    with running_steam() as stand_in:
        monkeypatch.setenv("WEBSTORE_STEAM_OPENID_URL", stand_in.login_url)
        stand_in.approve_as = STEAM_ID
        demo.table.update(
            keys.key(keys.store_pk(1), keys.STORE_ITEM),
            "SET platform_type_id = :p, game_type = :g",
            values={":p": "rust", ":g": "Rust"},
        )
        yield stand_in


def test_a_steam_player_signs_in_pays_and_is_queued_under_the_steam64_id(
    steam_site: StandInSteam,
    storefront_in_process: str,  # noqa: F811 (the fixture imported above)
    demo: DemoStore,
    return_site: ReturnSite,
    browser: Browser,
) -> None:
    base = storefront_in_process
    host = base.split("/api/")[0]
    complete_url = return_site.url("/thanks")
    with httpx.Client(timeout=10) as http:
        created = http.post(
            f"{base}/baskets", json={"complete_url": complete_url, "complete_auto_redirect": True}
        )
        assert created.status_code == 200, created.text
        ident = created.json()["data"]["ident"]
        added = http.post(f"{host}/api/baskets/{ident}/packages", json={"package_id": 10, "quantity": 1})
        assert added.status_code == 200, added.text
        checkout_link = added.json()["data"]["links"]["checkout"]
        [auth] = http.get(f"{base}/baskets/{ident}/auth", params={"returnUrl": checkout_link}).json()

    context = browser.new_context()
    page = context.new_page()
    try:
        page.goto(auth["url"])
        assert page.get_by_label("Username").count() == 0
        page.get_by_role("link", name="Sign in through Steam").click()
        page.wait_for_url(after_log_in(checkout_link), timeout=15_000)
        assert STEAM_ID in page.content()
        basket = BasketRepository(demo.table).get(ident)
        assert basket.username == STEAM_ID and basket.username_id is not None

        # The same assertion again (a replay): refused, the basket unchanged.
        [assertion_url] = steam_site.issued
        replay = page.goto(assertion_url)
        assert replay is not None and replay.status == 409
        assert "already used" in page.content()
        # Tampered with (another Steam id claimed under the same signature): Steam says no.
        parts = urlsplit(assertion_url)
        fields = dict(parse_qsl(parts.query))
        other = "https://steamcommunity.com/openid/id/76561197960287931"
        fields.update({"openid.claimed_id": other, "openid.identity": other})
        tampered = page.goto(parts._replace(query=urlencode(fields)).geturl())
        assert tampered is not None and tampered.status == 422
        assert BasketRepository(demo.table).get(ident).username == STEAM_ID

        page.goto(checkout_link)
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url(complete_url, timeout=30_000)
    finally:
        context.close()

    assert BasketRepository(demo.table).get(ident).complete

    # The plugin's poll, through the operator's handler (in a thread of its own: Playwright keeps
    # an event loop running in this one).
    def poll() -> Response:
        asyncio.set_event_loop(asyncio.new_event_loop())  # Mangum needs one in its thread
        return invoke(get_due_players.handler, "GET", "/queue", headers=secret_headers(demo.server_secret))

    with ThreadPoolExecutor(1) as plugin:
        due = plugin.submit(poll).result()
    assert due.status == 200, due.body
    [player] = due.json()["players"]
    assert (player["uuid"], player["name"], player["id"]) == (STEAM_ID, STEAM_ID, basket.username_id)
