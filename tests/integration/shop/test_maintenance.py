"""Maintenance mode through the real handlers: the owner turns it on in panel → Shop → Look with
a message; every page and form of the shop answers the branded maintenance page (503,
Retry-After) and changes nothing; the log-in page stays open; an allow-listed address or
network, or a player logged in under an allow-listed name, sees the shop; the panel's previews
still work; a bad allow-list entry or message is refused naming the field, changing nothing."""

from __future__ import annotations

from typing import Any

import pytest

from functions import unmatched
from functions.admin import get_shop_look, post_shop_look, post_shop_look_preview, post_shop_preview
from functions.shop import (
    get_basket,
    get_category,
    get_home,
    get_login,
    get_package,
    get_page,
    post_basket_coupon,
    post_basket_creator_code,
    post_basket_giftcard,
    post_basket_package,
    post_basket_quantity,
    post_basket_remove,
    post_checkout,
    post_login,
)
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.name_service import set_bedrock_names
from tests.support.panel import PanelClient, signed_in
from tests.support.shop import ShopClient
from webstore.admin.roles import Role
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services

MESSAGE = "Upgrading to 1.21 <b>tonight</b>\nBack at 22:00 UTC"
PAGES = [
    (get_home.handler, "/"),
    (get_category.handler, "/category/items"),
    (get_package.handler, "/package/10"),
    (get_page.handler, "/page/rules"),
    (get_basket.handler, "/basket"),
    (get_category.handler, "/category/nope"),
    (unmatched.shop_handler, "/no/such/place"),
]
FORMS = [
    (post_basket_package.handler, "/basket/packages", {"package_id": "10"}),
    (post_basket_quantity.handler, "/basket/quantity", {"package_id": "10", "quantity": "3"}),
    (post_basket_remove.handler, "/basket/remove", {"package_id": "10"}),
    (post_basket_coupon.handler, "/basket/coupons", {"code": "SUMMER"}),
    (post_basket_giftcard.handler, "/basket/giftcards", {"code": "GC-1234"}),
    (post_basket_creator_code.handler, "/basket/creator-code", {"code": "streamer"}),
    (post_checkout.handler, "/checkout", {}),
]


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def revision(owner: PanelClient) -> str:
    page = owner.get(get_shop_look.handler, "/shop/look").body
    return page.split('name="revision" value="', 1)[1].split('"', 1)[0]


def close(owner: PanelClient, allow: str = "", message: str = MESSAGE) -> Any:
    fields = {
        "maintenance": "on",
        "maintenance_message": message,
        "maintenance_allow": allow,
        "revision": revision(owner),
    }
    return owner.post(post_shop_look.handler, "/shop/look", fields)


def is_maintenance(response: Any) -> bool:
    return (
        response.status == 503
        and response.headers.get("retry-after") == "1800"
        and 'id="maintenance-message"' in response.body
    )


def test_every_page_and_form_answers_the_maintenance_page(owner: PanelClient) -> None:
    player = ShopClient()
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    basket_before = player.get(get_basket.handler, "/basket").body.count('name="package_id" value="10"')

    assert close(owner).status == 303
    for handler, path in PAGES:
        page = player.get(handler, path)
        assert is_maintenance(page), (path, page.status)
        assert "Upgrading to 1.21 &lt;b&gt;tonight&lt;/b&gt;<br>\nBack at 22:00 UTC" in page.body
        assert "<title>Back soon · Demo Craft</title>" in page.body
        assert 'id="maintenance-login"' not in page.body  # no names on the list: no log-in link
    for handler, path, fields in FORMS:
        answered = player.post(handler, path, fields)
        assert is_maintenance(answered), (path, answered.status)
    assert is_maintenance(ShopClient().get(get_home.handler, "/"))  # a new visitor too

    # The log-in page stays open; the basket was not changed by the forms.
    assert player.get(get_login.handler, "/login").status == 200
    assert (
        owner.post(
            post_shop_look.handler, "/shop/look", {"maintenance": "", "revision": revision(owner)}
        ).status
        == 303
    )
    after = player.get(get_basket.handler, "/basket")
    assert after.status == 200
    assert after.body.count('name="package_id" value="10"') == basket_before


def test_the_message_is_the_houses_in_the_visitors_language_when_the_owner_gives_none(
    owner: PanelClient,
) -> None:
    assert close(owner, message="").status == 303
    english = ShopClient().get(get_home.handler, "/")
    assert "The shop is closed for maintenance. Please come back soon." in english.body
    page = invoke(get_home.handler, "GET", "/", headers={"accept-language": "de"})
    assert page.status == 503 and "Bald wieder da" in page.body and "Wartungsarbeiten" in page.body


def test_an_allow_listed_address_or_network_sees_the_shop(owner: PanelClient) -> None:
    assert close(owner, allow="203.0.113.7, 198.51.100.0/24\n2001:db8::/32").status == 303
    inside = ShopClient(source_ip="198.51.100.23")
    assert inside.get(get_home.handler, "/").status == 200
    assert inside.get(get_login.handler, "/login").status == 200  # its form sets the CSRF cookie
    assert inside.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    assert inside.get(get_basket.handler, "/basket").status == 200
    assert ShopClient(source_ip="203.0.113.7").get(get_category.handler, "/category/items").status == 200
    assert is_maintenance(ShopClient(source_ip="203.0.113.8").get(get_home.handler, "/"))
    assert is_maintenance(ShopClient(source_ip="192.0.2.1").get(get_package.handler, "/package/10"))


def test_an_allow_listed_player_sees_the_shop_once_logged_in(owner: PanelClient) -> None:
    assert close(owner, allow="Notch").status == 303
    player = ShopClient(source_ip="192.0.2.1")
    closed = player.get(get_home.handler, "/")
    assert is_maintenance(closed) and 'id="maintenance-login"' in closed.body
    assert player.get(get_login.handler, "/login").status == 200
    assert player.post(post_login.handler, "/login", {"username": "notch"}).status == 303
    assert player.get(get_home.handler, "/").status == 200
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    assert player.get(get_basket.handler, "/basket").status == 200

    other = ShopClient(source_ip="192.0.2.1")
    other.get(get_login.handler, "/login")
    assert other.post(post_login.handler, "/login", {"username": "Steve"}).status == 303
    assert is_maintenance(other.get(get_home.handler, "/"))


def test_an_allow_listed_bedrock_player_sees_the_shop_their_spaces_written_as_underscores(
    owner: PanelClient, demo: DemoStore
) -> None:
    """A Bedrock name under the store's prefix (one with letters here), spaces written `_` on
    the list, admits the player logged in with the spaces (docs/shop.md, "Maintenance mode")."""
    set_bedrock_names(demo.table, 1, prefix="BE_")
    assert close(owner, allow="Notch, BE_Big_Tree").status == 303
    player = ShopClient(source_ip="192.0.2.1")
    player.get(get_login.handler, "/login")
    assert player.post(post_login.handler, "/login", {"username": "BE_Big Tree"}).status == 303
    assert player.get(get_home.handler, "/").status == 200
    other = ShopClient(source_ip="192.0.2.1")
    other.get(get_login.handler, "/login")
    assert other.post(post_login.handler, "/login", {"username": "BE_Big Bush"}).status == 303
    assert is_maintenance(other.get(get_home.handler, "/"))


def test_the_panel_previews_still_work_during_maintenance(owner: PanelClient) -> None:
    assert close(owner).status == 303
    look = owner.post(
        post_shop_look_preview.handler,
        "/shop/look/preview",
        {"maintenance": "on", "hero_text": "Preview me", "revision": "0"},
    )
    assert look.status == 200 and 'id="hero-text">Preview me<' in look.body
    draft = owner.post(
        post_shop_preview.handler,
        "/shop/preview",
        {"name": "maintenance.html", "source": "{{ maintenance.message }} ({{ store.name }})"},
    )
    assert draft.status == 200 and "Upgrading to 1.21" in draft.body and "(Demo Craft)" in draft.body


def test_the_form_shows_and_keeps_the_settings(owner: PanelClient) -> None:
    assert close(owner, allow="198.51.100.0/24; notch  203.0.113.7").status == 303
    form = owner.get(get_shop_look.handler, "/shop/look").body
    assert 'id="maintenance-on" name="maintenance" type="checkbox" value="on" checked' in form
    assert ">198.51.100.0/24, 203.0.113.7/32, notch</textarea>" in form
    live = ShopThemeRepository(get_services().table).live(1).look
    assert live.maintenance == "on" and live.maintenance_message == MESSAGE


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"maintenance_allow": "203.0.113.300"}, "maintenance: &#39;203.0.113.300&#39; is not an IP"),
        ({"maintenance_allow": "10.0.0.0/33"}, "is not an IP address or network"),
        ({"maintenance_allow": "<script>"}, "is neither a player name nor an IP address"),
        ({"maintenance_allow": "Notch .Steve_Jobs BE_Steve.x~"}, "&#39;BE_Steve.x~&#39; is neither a player"),
        ({"maintenance_allow": ", ".join(f"Player{n}" for n in range(51))}, "at most 50 entries"),
        ({"maintenance_message": "x" * 1001}, "Maintenance message: plain text of at most 1000"),
        ({"maintenance": "maybe"}, "Maintenance mode: on or off"),
    ],
)
def test_a_bad_value_is_refused_naming_the_field_and_changes_nothing(
    owner: PanelClient, fields: dict[str, str], message: str
) -> None:
    before = ShopThemeRepository(get_services().table).live(1)
    typed = {"maintenance": "on", "maintenance_message": "Back soon", "revision": revision(owner)} | fields
    refused = owner.post(post_shop_look.handler, "/shop/look", typed)
    assert refused.status == 422 and message in refused.body and 'id="form-error"' in refused.body
    assert ShopThemeRepository(get_services().table).live(1) == before
    assert ShopClient().get(get_home.handler, "/").status == 200
