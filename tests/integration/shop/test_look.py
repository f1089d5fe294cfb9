"""Panel → Shop → Look through the real handlers: the owner sets the logo, favicon, colours,
hero and banner texts and the package layout without a template; the shop shows them (the
colours under the page's policy by their hash); a bad value is refused naming the field, with
what was typed, and changes nothing; a stale form is a conflict; the theme file carries it."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from functions.admin import get_shop_look, get_shop_theme, post_shop_look, post_shop_theme
from functions.shop import get_category, get_home
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from tests.support.shop import ShopClient
from webstore.admin.roles import Role
from webstore.repo.audit_log import AuditLog
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services
from webstore.shop.pages import style_hash

LOOK = {
    "logo": "https://cdn.example.com/logo.png",
    "favicon": "https://cdn.example.com/favicon.png",
    "primary_color": "#8A2BE2",
    "accent_color": "#0b6e4f",
    "hero_text": "Season 4 starts Friday <b>now</b>",
    "sale_banner": "Everything 20% off this weekend",
    "package_layout": "list",
}


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def revision(owner: PanelClient) -> str:
    page = owner.get(get_shop_look.handler, "/shop/look").body
    return page.split('name="revision" value="', 1)[1].split('"', 1)[0]


def save(owner: PanelClient, look: dict[str, str], seen: str | None = None) -> Any:
    fields = look | {"revision": seen if seen is not None else revision(owner)}
    return owner.post(post_shop_look.handler, "/shop/look", fields)


def test_the_owner_sets_the_look_and_the_shop_shows_it(owner: PanelClient) -> None:
    saved = save(owner, LOOK)
    assert saved.status == 303 and saved.headers["location"].startswith("/shop/look")
    form = owner.get(get_shop_look.handler, "/shop/look").body
    assert 'value="#8a2be2"' in form and 'value="https://cdn.example.com/logo.png"' in form

    home = ShopClient().get(get_home.handler, "/")
    body = home.body
    assert '<img src="https://cdn.example.com/logo.png" alt="" width="40" height="40">' in body
    assert '<link rel="icon" href="https://cdn.example.com/favicon.png">' in body
    assert '<p class="hero-text" id="hero-text">Season 4 starts Friday &lt;b&gt;now&lt;/b&gt;</p>' in body
    assert 'id="sale-banner">Everything 20% off this weekend<' in body
    style = re.search(r"<style>(.*?)</style>", body)
    assert style and "--brand:#8a2be2" in style.group(1) and "--accent:#0b6e4f" in style.group(1)
    assert f"'sha256-{style_hash(style.group(1))}'" in home.headers["content-security-policy"]
    items = ShopClient().get(get_category.handler, "/category/items").body
    assert '<div class="list">' in items  # the look's layout over the category's grid

    [entry] = [e for e in AuditLog(get_services().table).page(1).entries if e.action == "shop.look.save"]
    assert "brand colour" in entry.summary and entry.actor == "owner@store1.test"


def test_empty_fields_keep_the_stores_own(owner: PanelClient) -> None:
    assert save(owner, LOOK).status == 303
    assert save(owner, dict.fromkeys(LOOK, "")).status == 303
    body = ShopClient().get(get_home.handler, "/").body
    assert "cdn.example.com" not in body and 'id="hero-text"' not in body
    assert 'id="sale-banner">Crate week: 10% off<' in body  # the running sale's banner again


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("primary_color", "purple", "Brand colour: a colour as #rrggbb"),
        ("accent_color", "#12345", "Accent colour: a colour as #rrggbb"),
        ("logo", "javascript:alert(1)", "Logo: an http(s) address"),
        ("favicon", "data:image/png;base64,AA", "Favicon: an http(s) address"),
        ("hero_text", "x" * 301, "Hero text: one line of at most 300 characters"),
        ("sale_banner", "two\nlines", "Sale banner: one line"),
        ("package_layout", "masonry", "Package layout:"),
    ],
)
def test_a_bad_value_is_refused_naming_the_field_and_changes_nothing(
    owner: PanelClient, field: str, value: str, message: str
) -> None:
    before = ShopThemeRepository(get_services().table).live(1)
    refused = save(owner, LOOK | {field: value})
    assert refused.status == 422 and message in refused.body and 'id="form-error"' in refused.body
    kept = "logo" if field == "sale_banner" else "sale_banner"
    assert f'value="{LOOK[kept]}"' in refused.body  # what was typed stays
    assert ShopThemeRepository(get_services().table).live(1) == before


def test_a_stale_form_is_a_conflict(owner: PanelClient) -> None:
    seen = revision(owner)
    assert save(owner, LOOK, seen).status == 303
    again = save(owner, LOOK | {"hero_text": "later"}, seen)
    assert again.status == 409 and "reload" in again.body


def test_a_reader_sees_the_look_without_a_form_and_cannot_save(demo: DemoStore) -> None:
    del demo
    reader = signed_in(Role.READONLY)
    page = reader.get(get_shop_look.handler, "/shop/look")
    assert page.status == 200 and '<form method="post" action="/shop/look"' not in page.body
    refused = reader.post(post_shop_look.handler, "/shop/look", LOOK | {"revision": "0"})
    assert refused.status == 403


def test_the_theme_file_carries_the_look(owner: PanelClient) -> None:
    assert save(owner, LOOK).status == 303
    exported = owner.get(get_shop_theme.handler, "/shop/theme").body
    assert json.loads(exported)["look"]["primary_color"] == "#8a2be2"
    assert save(owner, dict.fromkeys(LOOK, "")).status == 303
    imported = owner.post(
        post_shop_theme.handler, "/shop/theme", {"theme": exported, "revision": revision(owner)}
    )
    assert imported.status == 303, imported.body
    assert ShopThemeRepository(get_services().table).live(1).look.hero_text == LOOK["hero_text"]


def test_the_preview_shows_the_draft_look_and_stores_nothing(owner: PanelClient) -> None:
    from functions.admin import post_shop_look_preview

    before = ShopThemeRepository(get_services().table).live(1)
    shown = owner.post(post_shop_look_preview.handler, "/shop/look/preview", LOOK | {"revision": "0"})
    assert shown.status == 200, shown.body
    assert 'id="hero-text">Season 4 starts Friday &lt;b&gt;now&lt;/b&gt;<' in shown.body
    assert "--brand:#8a2be2" in shown.body
    policy = shown.headers["content-security-policy"]
    assert "script-src 'none'" in policy and "form-action 'none'" in policy
    assert ShopThemeRepository(get_services().table).live(1) == before
    assert "Season 4" not in ShopClient().get(get_home.handler, "/").body
    refused = owner.post(
        post_shop_look_preview.handler, "/shop/look/preview", LOOK | {"primary_color": "red", "revision": "0"}
    )
    assert refused.status == 422 and "Brand colour: a colour as #rrggbb" in refused.body


def test_after_adding_the_player_stays_on_the_package_when_the_owner_says_so(owner: PanelClient) -> None:
    from functions.shop import get_package, post_basket_package

    player = ShopClient()
    form = player.get(get_package.handler, "/package/10").body
    assert 'name="next"' not in form[form.index('id="options"') :]
    assert save(owner, LOOK | {"after_add": "package"}).status == 303
    form = player.get(get_package.handler, "/package/10").body
    assert '<input type="hidden" name="next" value="/package/10">' in form
    added = player.post(
        post_basket_package.handler, "/basket/packages", {"package_id": "10", "next": "/package/10"}
    )
    assert added.status == 303 and added.headers["location"] == "/package/10"


def test_prices_hidden_from_guests_show_once_a_player_logs_in(owner: PanelClient) -> None:
    from functions.shop import get_login, post_login

    assert save(owner, LOOK | {"guest_prices": "hidden"}).status == 303
    player = ShopClient()
    items = player.get(get_category.handler, "/category/items").body
    assert "$2.50 USD" not in items and '<a href="/login" rel="nofollow">Log in to see prices</a>' in items
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_login.handler, "/login", {"username": "Steve"}).status == 303
    assert "$2.50 USD" in player.get(get_category.handler, "/category/items").body
    refused = save(owner, LOOK | {"guest_prices": "sometimes"})
    assert refused.status == 422 and "Prices for guests: shown or hidden" in refused.body


@pytest.mark.parametrize(("style", "size"), [("", 40), ("compact", 28), ("centered", 72)])
def test_the_header_style_saves_and_the_shop_renders_it(owner: PanelClient, style: str, size: int) -> None:
    assert save(owner, LOOK | {"header_style": style}).status == 303
    form = owner.get(get_shop_look.handler, "/shop/look").body
    assert f'<option value="{style}" selected>' in form
    for handler, path in ((get_home.handler, "/"), (get_category.handler, "/category/items")):
        body = ShopClient().get(handler, path).body
        assert f'<header class="site header-{style or "banner"}" id="site-header">' in body
        assert f'<img src="https://cdn.example.com/logo.png" alt="" width="{size}" height="{size}">' in body
    assert ShopThemeRepository(get_services().table).live(1).look.header_style == style


def test_an_unknown_header_style_is_refused(owner: PanelClient) -> None:
    refused = save(owner, LOOK | {"header_style": "sideways"})
    assert refused.status == 422 and "Header style: banner, compact or centred" in refused.body
    assert ShopThemeRepository(get_services().table).live(1).look.header_style == ""
