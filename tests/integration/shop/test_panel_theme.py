"""Panel → Shop through the real handlers (docs/shop.md, "Owner templates"): the owner edits a
template, previews it, saves drafts, publishes, rolls back to any kept version or the house's
file, exports and imports the theme; a template that does not render is refused with its line
and nothing is stored; one that fails at request time falls back to its last good version and
the panel says so. Every form refuses a missing CSRF token and a role that may not write."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest

from functions.admin import (
    get_shop,
    get_shop_editor,
    get_shop_theme,
    post_shop_preview,
    post_shop_publish,
    post_shop_template,
    post_shop_theme,
)
from functions.shop import get_basket, get_home, get_package, post_basket_package
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.lambda_events import Response
from tests.support.panel import PanelClient, signed_in
from tests.support.shop import ShopClient
from webstore.admin.roles import Role
from webstore.repo.audit_log import AuditLog
from webstore.repo.shop_theme import ShopTheme, ShopThemeRepository, TemplateVersion
from webstore.services import get_services
from webstore.shop.theme import house_source

HOME = house_source("index.html")


def marked(text: str) -> str:
    """The house's home page with `text` at the top of its content."""
    return HOME.replace("{% block content %}", "{% block content %}<p id='owner'>" + text + "</p>", 1)


def revision(owner: PanelClient, name: str = "index.html") -> str:
    page = owner.get(get_shop_editor.handler, "/shop/editor", {"name": name}).body
    return page.split('name="revision" value="', 1)[1].split('"', 1)[0]


def save(owner: PanelClient, source: str, *, publish: bool = True, name: str = "index.html") -> Response:
    fields = {
        "name": name,
        "source": source,
        "revision": revision(owner, name),
        "publish": "1" if publish else "",
    }
    return owner.post(post_shop_template.handler, "/shop/templates", fields)


def home_of(player: ShopClient) -> str:
    response = player.get(get_home.handler, "/")
    assert response.status == 200
    return response.body


def live() -> ShopTheme:
    return ShopThemeRepository(get_services().table).live(1)


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def test_the_house_block_marker_exists() -> None:
    assert "{% block content %}" in HOME  # what `marked` relies on


def test_the_overview_lists_every_template_serving_the_house_file(owner: PanelClient) -> None:
    page = owner.get(get_shop.handler, "/shop")
    assert page.status == 200 and "<h1>Shop</h1>" in page.body
    for name in (
        "layout.html",
        "index.html",
        "category.html",
        "package.html",
        "cms/page.html",
        "module.textbox.html",
    ):
        assert f"<code>{name}</code>" in page.body
    assert "bare.html" not in page.body
    assert 'href="/shop/theme"' in page.body and 'action="/shop/theme"' in page.body
    editor = owner.get(get_shop_editor.handler, "/shop/editor", {"name": "index.html"})
    assert editor.status == 200 and "No version saved yet" in editor.body
    assert "{% block content %}" in editor.body  # the house's file to start from
    missing = owner.get(get_shop_editor.handler, "/shop/editor", {"name": "../secrets.html"})
    assert missing.status == 404
    unnamed = owner.get(get_shop_editor.handler, "/shop/editor", {})  # none named: the home page's
    assert unnamed.status == 200 and 'name="name" value="index.html"' in unnamed.body


def test_save_and_publish_shows_on_the_shop_with_its_audit_entry(owner: PanelClient) -> None:
    player = ShopClient()
    assert "id='owner'" not in home_of(player)
    saved = save(owner, marked("Welcome, crafters"))
    assert saved.status == 303
    assert saved.headers["location"].startswith("/shop/editor?name=index.html&done=Version+1")
    assert "<p id='owner'>Welcome, crafters</p>" in home_of(player)
    theme = live()
    assert theme.published == {"index.html": 1} and theme.latest == {"index.html": 1}
    entry = AuditLog(get_services().table).page(1).entries[0]
    assert (
        entry.action == "shop.template.publish"
        and "index.html: version 1 saved and published" in entry.summary
    )
    editor = owner.get(get_shop_editor.handler, "/shop/editor", {"name": "index.html"})
    assert "1 (serving)" in editor.body and "Serve the house's file again" in editor.body


def test_a_draft_is_stored_but_not_served(owner: PanelClient) -> None:
    player = ShopClient()
    assert save(owner, marked("Draft only"), publish=False).status == 303
    assert "Draft only" not in home_of(player)
    assert live().published == {} and live().latest == {"index.html": 1}
    editor = owner.get(get_shop_editor.handler, "/shop/editor", {"name": "index.html"})
    assert "Draft only" in editor.body
    assert ">Publish version 1</button>" in editor.body


@pytest.mark.parametrize(
    ("source", "said"),
    [
        ("{% extends 'layout.html' %}\n{% block content %}\n{% if %}\n{% endblock %}", "index.html, line 3"),
        ("{% extends 'layout.html' %}\n{% block content %}\n\n{{ no_such_thing }}{% endblock %}", "line 4"),
        ("{% extends 'layout.html' %}{% block content %}{{ ''.__class__ }}{% endblock %}", "__class__"),
        ("{% extends 'layout.html' %}{% block content %}{{ store.name.format(1) }}{% endblock %}", "format"),
    ],
    ids=["syntax", "unknown-variable", "dunder", "format"],
)
def test_a_template_that_does_not_render_is_refused_with_its_line_and_nothing_changes(
    owner: PanelClient, source: str, said: str
) -> None:
    player = ShopClient()
    before = home_of(player)
    entries = AuditLog(get_services().table).page(1).entries
    refused = save(owner, source)
    assert refused.status == 422 and 'id="form-error"' in refused.body
    assert said in refused.body.replace("&#39;", "'")
    assert "<textarea" in refused.body and "block content" in refused.body  # as typed
    assert live().latest == {} and AuditLog(get_services().table).page(1).entries == entries
    assert home_of(player) == before  # the shop keeps serving


def test_rollback_to_any_kept_version_and_to_the_house_file(owner: PanelClient) -> None:
    player = ShopClient()
    for text in ("First", "Second", "Third"):
        assert save(owner, marked(text)).status == 303
    assert "<p id='owner'>Third</p>" in home_of(player)
    back = owner.post(
        post_shop_publish.handler,
        "/shop/publish",
        {"name": "index.html", "version": "1", "revision": revision(owner)},
    )
    assert back.status == 303 and "Version+1+published" in back.headers["location"]
    assert "<p id='owner'>First</p>" in home_of(player)
    assert live().published == {"index.html": 1} and live().last_good_versions == {"index.html": 3}
    house = owner.post(
        post_shop_publish.handler,
        "/shop/publish",
        {"name": "index.html", "version": "0", "revision": revision(owner)},
    )
    assert house.status == 303 and "id='owner'" not in home_of(player)
    gone = owner.post(
        post_shop_publish.handler,
        "/shop/publish",
        {"name": "index.html", "version": "9", "revision": revision(owner)},
    )
    assert gone.status == 404  # no such version: the request's own answer


def test_a_stale_revision_is_refused_as_a_conflict_keeping_what_was_typed(owner: PanelClient) -> None:
    seen = revision(owner)
    assert save(owner, marked("Someone else")).status == 303
    fields = {"name": "index.html", "source": marked("Mine"), "revision": seen, "publish": "1"}
    stale = owner.post(post_shop_template.handler, "/shop/templates", fields)
    assert stale.status == 409 and "reload" in stale.body and "Mine" in stale.body
    assert "Someone else" in home_of(ShopClient())


def test_the_preview_renders_the_draft_without_storing_it(owner: PanelClient) -> None:
    fields = {"name": "index.html", "source": marked("Preview me"), "revision": revision(owner)}
    shown = owner.post(post_shop_preview.handler, "/shop/preview", fields)
    assert shown.status == 200 and "<p id='owner'>Preview me</p>" in shown.body
    policy = shown.headers["content-security-policy"]
    assert "script-src 'none'" in policy and "form-action 'none'" in policy
    assert live().latest == {} and "Preview me" not in home_of(ShopClient())
    category = owner.post(
        post_shop_preview.handler,
        "/shop/preview",
        {"name": "category.html", "source": house_source("category.html").replace("</h1>", " (new)</h1>", 1)},
    )
    assert category.status == 200 and " (new)</h1>" in category.body
    broken = owner.post(
        post_shop_preview.handler, "/shop/preview", {"name": "index.html", "source": "{% for %}"}
    )
    assert broken.status == 422 and 'id="form-error"' in broken.body and "line 1" in broken.body


def test_a_template_failing_at_request_time_falls_back_to_its_last_good_version(owner: PanelClient) -> None:
    assert save(owner, marked("Good one")).status == 303
    # Passes the check (the samples' basket is empty) but fails for a player with a basket.
    risky = marked("Risky{% if basket.count > 0 %}{{ basket.no_such_field }}{% endif %}")
    assert save(owner, risky).status == 303
    player = ShopClient()
    assert "Risky" in home_of(player)
    player.get(get_package.handler, "/package/10")  # a page with a form: it sets the CSRF cookie
    player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"})
    assert player.get(get_basket.handler, "/basket").status == 200
    page = home_of(player)  # the published version fails: the last good serves
    assert "<p id='owner'>Good one</p>" in page and "Risky" not in page


def test_a_template_over_its_render_budget_is_refused_or_falls_back_to_its_last_good(
    owner: PanelClient,
) -> None:
    """Always over (1,000,000 loop steps): refused on save with its line. Over only for a player
    with a basket: stored, and that player's page serves the last good version."""
    nested = "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}"
    refused = save(owner, marked("Loops" + nested))
    assert refused.status == 422 and "loops ran more than 200,000 times" in refused.body
    assert "Loops" not in home_of(ShopClient())
    assert save(owner, marked("Good one")).status == 303
    assert save(owner, marked("Heavy{% if basket.count > 0 %}" + nested + "{% endif %}")).status == 303
    player = ShopClient()
    assert "Heavy" in home_of(player)  # its basket is empty yet
    player.get(get_package.handler, "/package/10")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    page = home_of(player)
    assert "<p id='owner'>Good one</p>" in page and "Heavy" not in page


def test_a_stored_template_that_fails_today_falls_back_and_the_panel_shows_its_line(
    owner: PanelClient,
) -> None:
    """A live file that no longer renders (stored before a variable it uses went away): the shop
    serves the house's file (no last good), the overview names the file and line."""
    repository = ShopThemeRepository(get_services().table)
    now = datetime.now(UTC)
    broken = "{% extends 'layout.html' %}\n{% block content %}\n{{ store.gone_variable }}\n{% endblock %}"
    new = ShopTheme(
        revision=1, published={"index.html": 1}, sources={"index.html": broken}, latest={"index.html": 1}
    )
    version = TemplateVersion(
        name="index.html", version=1, source=broken, saved_at=now, actor="owner@store1.test"
    )
    from webstore.repo.audit_log import Audit

    repository.change(1, ShopTheme(), new, [version], Audit("test", "shop.template.publish", "seeded", now))
    page = ShopClient().get(get_home.handler, "/")
    assert page.status == 200 and "Demo Craft" in page.body  # the house's home page
    overview = owner.get(get_shop.handler, "/shop")
    assert 'id="theme-errors"' in overview.body
    assert "index.html</a>, line 3" in overview.body and "gone_variable" in overview.body


def test_export_then_import_carries_the_templates(owner: PanelClient) -> None:
    assert save(owner, marked("Exported")).status == 303
    assert (
        save(
            owner, house_source("layout.html").replace("<body", '<body data-owner="1"', 1), name="layout.html"
        ).status
        == 303
    )
    exported = owner.get(get_shop_theme.handler, "/shop/theme")
    assert exported.status == 200 and "attachment" in exported.headers["content-disposition"]
    document = json.loads(exported.body)
    assert document["format"] == "webstore-shop-theme" and set(document["templates"]) == {
        "index.html",
        "layout.html",
    }
    # Back to the house's files, then the file restores both.
    for name in ("index.html", "layout.html"):
        fields = {"name": name, "version": "0", "revision": revision(owner, name)}
        assert owner.post(post_shop_publish.handler, "/shop/publish", fields).status == 303
    assert "Exported" not in home_of(ShopClient())
    imported = upload(owner, exported.body)
    assert imported.status == 303 and imported.headers["location"].startswith("/shop?done=")
    page = home_of(ShopClient())
    assert "<p id='owner'>Exported</p>" in page and 'data-owner="1"' in page
    assert live().published == {"index.html": 2, "layout.html": 2}


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("not json", "not JSON"),
        (json.dumps({"format": "tebex", "version": 1, "templates": {}}), "not a shop theme file"),
        (json.dumps({"format": "webstore-shop-theme", "version": 1, "templates": {"x.php": ""}}), "x.php"),
        (
            json.dumps(
                {"format": "webstore-shop-theme", "version": 1, "templates": {"index.html": "{% if %}"}}
            ),
            "index.html, line 1",
        ),
    ],
    ids=["not-json", "other-format", "unknown-name", "broken-template"],
)
def test_an_import_that_cannot_be_used_is_refused_and_changes_nothing(
    owner: PanelClient, text: str, said: str
) -> None:
    refused = upload(owner, text)
    assert refused.status == 422 and 'id="form-error"' in refused.body and said in refused.body
    assert live() == ShopTheme()


def upload(owner: PanelClient, text: str, *, csrf: str | None = None) -> Response:
    boundary = "----webstore-test-boundary"
    token = owner.csrf if csrf is None else csrf
    body = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="csrf"\r\n\r\n{token}\r\n'
        f'--{boundary}\r\nContent-Disposition: form-data; name="theme"; filename="shop-theme.json"\r\n'
        f"Content-Type: application/json\r\n\r\n{text}\r\n--{boundary}--\r\n"
    )
    response = invoke(
        post_shop_theme.handler,
        "POST",
        "/shop/theme",
        raw_body=body,
        headers=owner.headers({"content-type": f"multipart/form-data; boundary={boundary}"}),
        source_ip=owner.source_ip,
    )
    owner.last = response
    return response


FORMS = [
    (
        post_shop_template.handler,
        "/shop/templates",
        {"name": "index.html", "source": "x", "revision": "0", "publish": "1"},
    ),
    (post_shop_publish.handler, "/shop/publish", {"name": "index.html", "version": "0", "revision": "0"}),
    (post_shop_preview.handler, "/shop/preview", {"name": "index.html", "source": "x"}),
]


@pytest.mark.parametrize(("handler", "path", "fields"), FORMS, ids=[f[1] for f in FORMS])
def test_every_form_refuses_a_missing_csrf_token_and_a_role_that_may_not_write(
    owner: PanelClient, handler: Any, path: str, fields: dict[str, str]
) -> None:
    assert owner.post(handler, path, fields, csrf="").status == 403
    assert owner.post(handler, path, fields, csrf="forged-token").status == 403
    reader = signed_in(Role.READONLY)
    assert reader.post(handler, path, fields).status == 403
    assert live() == ShopTheme()


def test_the_import_refuses_a_missing_csrf_token_and_a_reader(owner: PanelClient) -> None:
    document = json.dumps(
        {"format": "webstore-shop-theme", "version": 1, "templates": {"index.html": marked("x")}}
    )
    assert upload(owner, document, csrf="").status == 403
    reader = signed_in(Role.READONLY)
    assert upload(reader, document).status == 403
    assert live() == ShopTheme()
    page = reader.get(get_shop.handler, "/shop")
    assert page.status == 200 and 'action="/shop/theme"' not in page.body  # no forms for a reader
    editor = reader.get(get_shop_editor.handler, "/shop/editor", {"name": "index.html"})
    assert "<textarea" not in editor.body and "<pre" in editor.body


def test_an_owners_form_on_a_shared_page_gets_its_token_and_the_page_is_private(owner: PanelClient) -> None:
    """The home is shared at the edge for cookie-less visitors (test_edge_cache.py) unless its
    template has a form: then the visitor gets a token and the page is private."""
    form = '<form method="post" action="/basket"><input type="hidden" name="csrf" value="{{ csrf }}">'
    form += "</form>"
    assert save(owner, marked("Quick buy" + form)).status == 303
    player = ShopClient()
    page = player.get(get_home.handler, "/")
    assert page.status == 200 and "Quick buy" in page.body
    assert page.headers["cache-control"] == "no-store"
    assert player.csrf and f'name="csrf" value="{player.csrf}"' in page.body
