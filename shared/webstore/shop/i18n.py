"""The shop's languages (docs/shop.md, "Languages"): the default theme's text in English,
German, French, Spanish and Brazilian Portuguese, from gettext message catalogs
(`locale/<language>/LC_MESSAGES/shop.po`, compiled to `shop.mo` by scripts/shop_messages.py,
read here with the standard library).

The language of a page: the first of the visitor's `Accept-Language` the shop has (`de-AT` is
German, `pt` Brazilian Portuguese), else the store's language (`store.lang`), else English.
Templates translate with Tebex's `trans` filter (`{{ "Log in"|trans }}`,
`{{ "Basket (%(count)s)"|trans(count=basket.count) }}`), which looks the text up in the page's
`translations` variable (a plain mapping: the sandbox sees no gettext object).
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from types import MappingProxyType

LOCALE = Path(__file__).resolve().parent / "locale"
# The texts the shop's Python hands to the templates (page titles, errors, total rows, the sale
# banner), translated with the page by `webstore.shop.pages`; scripts/shop_messages.py puts them
# in the catalogs beside the theme's `"…"|trans` texts. A text not listed prints as it is.
PYTHON_TEXTS = (
    "Basket",
    "Log in",
    "Bad request",
    "Not found",
    "Invalid request",
    "Forbidden",
    "Gone",
    "Conflict",
    "Too many requests",
    "There is nothing at this address",
    "There is no such category in this store",
    "There is no such package in this store",
    "There is no such page in this store",
    "This shop does not speak that language",
    "Your basket is empty: add a package first",
    "Enter your username",
    "This basket is paid for; start a new one",
    "This form has expired or did not come from this shop: reload the page and try again",
    "A username is 3 to 16 letters, digits or underscores",
    "Subtotal",
    "Sales tax",
    "Total",
    "Amount due",
    "%(sale)s: %(percent)s%% off",
    "Back soon",
    "The shop is closed for maintenance. Please come back soon.",
    "Gift card balance",
    "No gift card with that code",
    "Enter a gift card code",
    "Too many gift card look-ups from this address; try again later",
)
# The hosted pages' own texts (docs/shop.md, "The hosted pages"): the house templates'
# `"…"|trans` texts are extracted from the files (`HOSTED_TEMPLATES`); these are the texts
# their Python passes (titles, total rows, dates' labels, how to cancel).
HOSTED_TEMPLATES = ("layout/player.html", "macros/order.html", "hosted/*.html")
# The player e-mails speak the store's language too (webstore.mail.compose; docs/mail.md).
MAIL_TEMPLATES = ("mail/*.html", "mail/*.txt")
HOSTED_TEXTS = (
    "Checkout",
    "Receipt",
    "Your subscription",
    "Your subscriptions",
    "VAT",
    "Discounts",
    "Sale",
    "Amount paid",
    "Total due",
    "Total paid",
    "Next payment",
    "Ends on",
    "Ended on",
    "Cancel any time from the “Manage or cancel your subscription” link on your receipt. You"
    " keep what you paid for until the end of the current period and are not charged again.",
    "Cancel any time from the “Manage or cancel your subscription” link on this receipt. You"
    " keep what you paid for until the end of the current period and are not charged again.",
)
# A long date (`long_date`: `1 June 2026`, `1. Juni 2026`, `1 de junio de 2026`): its pattern and
# the months, translated like any text.
DATE_PATTERN = "%(day)s %(month)s %(year)s"
MONTHS = (
    "January", "February", "March", "April", "May", "June",
    "July", "August", "September", "October", "November", "December",
)  # fmt: skip
DOMAIN = "shop"
SOURCE_LANGUAGE = "en"
LANGUAGES = ("en", "de", "fr", "es", "pt_BR")  # gettext's names; pages say `pt-BR`
_BY_PRIMARY = {"en": "en", "de": "de", "fr": "fr", "es": "es", "pt": "pt_BR"}
MAX_ACCEPT_LANGUAGE = 200  # characters of the header read
# The switcher's names: each language in itself (a visitor who reads none of the others finds theirs).
LANGUAGE_NAMES = {
    "en": "English",
    "de": "Deutsch",
    "fr": "Français",
    "es": "Español",
    "pt_BR": "Português (Brasil)",
}


def language_of(tag: str) -> str | None:
    """The shop's language for a BCP 47 tag (`de-AT` → `de`, `pt-BR`/`pt` → `pt_BR`), or None."""
    tag = tag.strip().replace("_", "-").lower()
    if not tag or tag == "*":
        return None
    return _BY_PRIMARY.get(tag.split("-", 1)[0])


def chosen_language(value: str | None) -> str:
    """A language the visitor picked in the switcher (`de`, `pt-BR`), if the shop has it; else ""."""
    found = language_of((value or "")[:16])
    return found or ""


def choose(accept_language: str, store_language: str, chosen: str = "") -> str:
    """The visitor's pick in the switcher, else their first language the shop has (by `q`),
    else the store's, else English."""
    if chosen_language(chosen):
        return chosen_language(chosen)
    wanted: list[tuple[float, int, str]] = []
    for n, part in enumerate(accept_language[:MAX_ACCEPT_LANGUAGE].split(",")):
        tag, _, params = part.partition(";")
        quality = 1.0
        if params.strip().startswith("q="):
            try:
                quality = float(params.strip()[2:])
            except ValueError:
                continue
        found = language_of(tag)
        if found and quality > 0:
            wanted.append((-quality, n, found))
    if wanted:
        return min(wanted)[2]
    return language_of(store_language) or SOURCE_LANGUAGE


def html_lang(language: str) -> str:
    return language.replace("_", "-")


@cache
def messages(language: str) -> Mapping[str, str]:
    """The compiled catalog of `language` as a mapping (English: empty, the text is the key)."""
    if language == SOURCE_LANGUAGE or language not in LANGUAGES:
        return MappingProxyType({})
    path = LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.mo"
    with path.open("rb") as file:
        catalog = gettext.GNUTranslations(file)
    # The parsed catalog (msgid → msgstr); the header's empty msgid left out.
    parsed: dict[object, str] = catalog._catalog  # type: ignore[attr-defined]
    return MappingProxyType({k: v for k, v in parsed.items() if isinstance(k, str) and k and v})
