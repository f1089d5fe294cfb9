"""Owners' translation files (docs/shop.md, "Translation files") through the real handlers:
panel → Shop → Translations saves a language's JSON file (checked: bad JSON, an unknown text,
an unknown placeholder, each refused naming its line or key, nothing stored); the shop prints
the owner's wording over the built-in catalog, escaped; `webstore export`/`import` carry them."""

from __future__ import annotations

import json

import pytest

from functions.admin import get_shop_translations, post_shop_translations
from functions.shop import get_home, get_login
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.catalog_export import catalog_text, export_catalog
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.errors import Invalid
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def revision(owner: PanelClient, lang: str = "de") -> str:
    page = owner.get(get_shop_translations.handler, "/shop/translations", {"lang": lang}).body
    return page.split('name="revision" value="', 1)[1].split('"', 1)[0]


def save(owner: PanelClient, text: str, lang: str = "de") -> object:
    fields = {"lang": lang, "text": text, "revision": revision(owner, lang)}
    return owner.post(post_shop_translations.handler, "/shop/translations", fields)


def german(path: str = "/", handler: object = get_home.handler) -> str:
    return invoke(handler, "GET", path, headers={"accept-language": "de"}).body


def live() -> dict[str, str]:
    return ShopThemeRepository(get_services().table).live(1).translations


def test_the_owner_words_a_text_and_the_shop_prints_it(owner: PanelClient) -> None:
    listing = owner.get(get_shop_translations.handler, "/shop/translations")
    assert listing.status == 200 and 'id="lang-de"' in listing.body and 'id="lang-pt-BR"' in listing.body
    text = '{\n  "Log in": "Einloggen",\n  "Basket (%(count)s)": "Korb: %(count)s"\n}\n'
    saved = save(owner, text)
    assert saved.status == 303 and saved.headers["location"].startswith("/shop/translations?lang=de")
    page = german()
    assert ">Einloggen</a>" in page and ">Korb: 0</a>" in page
    assert "Kategorien" in page  # the rest stays the built-in German
    assert "<h1>Einloggen</h1>" in german("/login", get_login.handler)
    english = invoke(get_home.handler, "GET", "/").body
    assert ">Log in</a>" in english  # another language is not touched
    editor = owner.get(get_shop_translations.handler, "/shop/translations", {"lang": "de"}).body
    assert "Einloggen" in editor and '<ul id="versions"><li>1:' in editor


def test_english_can_be_reworded_too(owner: PanelClient) -> None:
    assert save(owner, '{"Log in": "Sign in"}', "en").status == 303
    assert ">Sign in</a>" in invoke(get_home.handler, "GET", "/").body


def test_owner_text_is_escaped(owner: PanelClient) -> None:
    """A stored translation is text: markup in it is printed, never run."""
    attack = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    assert save(owner, json.dumps({"Log in": attack, "Home": '"><b>x</b>'})).status == 303
    page = german()
    assert "<script>alert(1)" not in page and "<img src=x" not in page and "<b>x</b>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ('{\n  "Log in": "Einloggen",\n  "Home" "Start"\n}', "is not JSON: line 3 column 10"),
        (
            '{\n  "Log in": "Einloggen",\n  "Log out": "x",\n  "Buy a pony": "Pony"\n}',
            "line 4: 'Buy a pony' is not a text of the shop",
        ),
        (
            '{\n  "Basket (%(count)s)": "Korb (%(anzahl)s)"\n}',
            "line 2: 'Basket (%(count)s)' has no placeholder %(anzahl)s",
        ),
        ('{"Log in": 5}', "'Log in' should be given a text"),
        ('{"Log in": "a", "Log in": "b"}', "'Log in' is given twice"),
        ('["Log in"]', "should be one JSON object"),
        ('{"Basket (%(count)s)": "100% Korb %(count)s"}', "a % that is not a placeholder is written %%"),
    ],
)
def test_a_bad_file_is_refused_naming_its_line_or_key(owner: PanelClient, text: str, said: str) -> None:
    assert save(owner, '{"Log in": "Einloggen"}').status == 303
    refused = save(owner, text)
    assert refused.status == 422, refused.body
    assert 'id="form-error"' in refused.body and "translations/de.json" in refused.body
    assert said in refused.body.replace("&#39;", "'").replace("&#34;", '"')
    assert live() == {"de": '{"Log in": "Einloggen"}'}  # nothing stored
    assert ">Einloggen</a>" in german()


def test_a_language_the_shop_does_not_have(owner: PanelClient) -> None:
    assert owner.get(get_shop_translations.handler, "/shop/translations", {"lang": "ja"}).status == 404
    fields = {"lang": "ja", "text": "{}", "revision": revision(owner)}
    refused = owner.post(post_shop_translations.handler, "/shop/translations", fields)
    assert refused.status == 404 and live() == {}


def test_a_stale_form_is_a_conflict(owner: PanelClient) -> None:
    seen = revision(owner)
    assert save(owner, '{"Log in": "Einloggen"}').status == 303
    fields = {"lang": "de", "text": '{"Log in": "Anmeldung"}', "revision": seen}
    refused = owner.post(post_shop_translations.handler, "/shop/translations", fields)
    assert refused.status == 409 and "Anmeldung" in refused.body and live()["de"] == '{"Log in": "Einloggen"}'


def test_a_reader_sees_the_files_without_a_form(owner: PanelClient) -> None:
    assert save(owner, '{"Log in": "Einloggen"}').status == 303
    reader = signed_in(Role.READONLY)
    page = reader.get(get_shop_translations.handler, "/shop/translations", {"lang": "de"})
    assert page.status == 200
    assert 'id="translations"' not in page.body and "Einloggen" in page.body


def test_export_and_import_carry_the_files(owner: PanelClient) -> None:
    assert save(owner, '{"Log in": "Einloggen", "Basket (%(count)s)": "Korb (%(count)s)"}').status == 303
    assert save(owner, '{"Log in": "Connexion"}', "fr").status == 303
    table = get_services().table
    text = catalog_text(export_catalog(table, 1))
    document = json.loads(text)
    assert document["shop_translations"] == {
        "de": {"Log in": "Einloggen", "Basket (%(count)s)": "Korb (%(count)s)"},
        "fr": {"Log in": "Connexion"},
    }
    assert save(owner, "", "de").status == 303 and save(owner, "", "fr").status == 303
    assert live() == {}
    import_catalog(table, parse_catalog(document))
    assert ">Einloggen</a>" in german()
    assert set(live()) == {"de", "fr"}
    assert (
        json.loads(catalog_text(export_catalog(table, 1)))["shop_translations"]
        == document["shop_translations"]
    )
    # A file without the section leaves them; a bad one is refused before anything is written.
    del document["shop_translations"]
    import_catalog(table, parse_catalog(document))
    assert set(live()) == {"de", "fr"}
    document["shop_translations"] = {"de": {"Buy a pony": "Pony"}}
    document["store"]["name"] = "Renamed"
    with pytest.raises(Invalid, match="'Buy a pony' is not a text of the shop"):
        import_catalog(table, parse_catalog(document))
    assert set(live()) == {"de", "fr"} and "Renamed" not in german()
