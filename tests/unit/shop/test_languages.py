"""The shop's languages (webstore.shop.i18n, docs/shop.md "Languages"): every catalog translates
every text of the default theme, with the same placeholders, and its compiled .mo is the one
shipped; the page's language from Accept-Language, then the store's, then English; the `trans`
filter fills placeholders and survives a translation whose placeholders do not fit."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from webstore.html.owner import render_owner, translate
from webstore.shop.i18n import LANGUAGES, SOURCE_LANGUAGE, choose, html_lang, messages

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "scripts"))
import shop_messages

PLACEHOLDER = re.compile(r"%\(\w+\)s")
TRANSLATED = [language for language in LANGUAGES if language != SOURCE_LANGUAGE]


def test_the_theme_has_text_to_translate() -> None:
    texts = shop_messages.extracted()
    assert len(texts) >= 50 and "Add to basket" in texts and "Basket (%(count)s)" in texts


@pytest.mark.parametrize("language", TRANSLATED)
def test_each_catalog_translates_every_text_with_the_same_placeholders(language: str) -> None:
    catalog = messages(language)
    for text in shop_messages.extracted():
        assert catalog.get(text), f"{language} does not translate {text!r}"
        assert sorted(PLACEHOLDER.findall(catalog[text])) == sorted(PLACEHOLDER.findall(text)), (
            language,
            text,
        )


def test_the_shipped_mo_files_are_compiled_from_the_po_files() -> None:
    assert shop_messages.main(["--check"]) == 0  # complete, and each .mo up to date


def test_five_languages() -> None:
    assert set(LANGUAGES) == {"en", "de", "fr", "es", "pt_BR"}
    assert messages("en") == {}


@pytest.mark.parametrize(
    ("header", "store", "chosen"),
    [
        ("de-AT,de;q=0.9,en;q=0.8", "en", "de"),
        ("en-US,en;q=0.9", "de", "en"),
        ("pt-BR", "en", "pt_BR"),
        ("pt", "en", "pt_BR"),
        ("ja,zh;q=0.8", "fr", "fr"),  # none the shop has: the store's
        ("ja", "xx", "en"),  # nor the store's: English
        ("", "es", "es"),
        ("fr;q=0.5,es;q=0.9", "en", "es"),  # by quality
        ("de;q=0,fr", "en", "fr"),  # q=0: not wanted
        ("de;q=abc,es", "en", "es"),
        ("*", "de", "de"),
    ],
)
def test_the_page_language(header: str, store: str, chosen: str) -> None:
    assert choose(header, store) == chosen


def test_html_lang() -> None:
    assert html_lang("pt_BR") == "pt-BR" and html_lang("de") == "de"


def test_translate_fills_placeholders_and_falls_back_when_they_do_not_fit() -> None:
    assert translate({"Basket (%(count)s)": "Warenkorb (%(count)s)"}, "Basket (%(count)s)", {"count": 2}) == (
        "Warenkorb (2)"
    )
    assert (
        translate({"Basket (%(count)s)": "Korb (%(anzahl)s)"}, "Basket (%(count)s)", {"count": 2})
        == "Basket (2)"
    )
    assert translate({}, "Unknown text", {}) == "Unknown text"


def test_the_trans_filter_uses_the_pages_translations_and_escapes() -> None:
    source = '{{ "Gift for %(player)s"|trans(player=name) }}'
    overrides = {"probe.html": source}
    german = {"Gift for %(player)s": "Geschenk für %(player)s"}
    html = render_owner("probe.html", overrides=overrides, translations=german, name="<b>Steve</b>")
    assert html == "Geschenk für &lt;b&gt;Steve&lt;/b&gt;"
    assert render_owner("probe.html", overrides=overrides, name="Alex") == "Gift for Alex"


def test_an_owners_file_may_word_every_text_of_the_catalogs() -> None:
    """The hosted pages' and the e-mails' texts are the catalogs' too: a translation file may
    word them (webstore.shop.translations.known_texts; docs/shop.md "Translation files")."""
    from webstore.mail.compose import SUBJECTS
    from webstore.repo.shop_theme import ShopTheme
    from webstore.shop.i18n import HOSTED_TEXTS
    from webstore.shop.translations import known_texts

    known = known_texts(ShopTheme())
    places = shop_messages.extracted()
    hosted = {t for t, where in places.items() if any(p.startswith(("hosted/", "layout/")) for p, _ in where)}
    mail = {t for t, where in places.items() if any(p.startswith("mail/") for p, _ in where)}
    assert hosted and mail and set(SUBJECTS.values()) <= mail and set(HOSTED_TEXTS) <= set(places)
    assert set(places) <= known
