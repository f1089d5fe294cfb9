"""The player-facing frame: the store's brand, the one stylesheet, the strict policy, and the
problem page. HTTP-free.

Every player-facing page extends `templates/layout/player.html` with a `Brand`. Pages load
nothing external: their stylesheet is inline and allowed by its hash in the
Content-Security-Policy, so is the store's colour sheet; the store's images (logo, packages) are
the only other thing a page may load (`images=True`); no scripts, unless a processor's element
brings its own with the directives it needs (checkout.stripe_page).
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

from markupsafe import Markup

from webstore.html import asset_hash, inline, render


@dataclass(frozen=True)
class Brand:
    """What a player-facing page shows of the store: its name in the banner (none: no banner),
    its logo, its colours (`theme`: CSS variables, `storefront.theme.brand`), its site for the
    way back, and the page's language."""

    name: str = ""
    logo: str | None = None  # an http(s) URL
    url: str | None = None  # the store's site ("Back to …")
    theme: str = ""  # a stylesheet of CSS variables, allowed by its hash
    lang: str = "en"
    favicon: str | None = None  # an http(s) URL (the shop's look)

    def __post_init__(self) -> None:
        for field in ("logo", "url", "favicon"):
            value = getattr(self, field)
            if value and not value.startswith(("https://", "http://")):
                object.__setattr__(self, field, None)
        object.__setattr__(self, "theme", Markup(self.theme))  # made from checked colours only

    def policy(self, *form_targets: str, images: bool = False) -> str:
        """The policy of a page in this brand: its colours' sheet, and images when it shows any."""
        themes = (str(self.theme),) if self.theme else ()
        shown = images or bool(self.logo) or bool(self.favicon)
        return content_security_policy(*form_targets, themes=themes, images=shown)


UNBRANDED = Brand()

# The brand of the page being made, for its problem page: a page use case names it as soon as
# it has read the store (`use_brand`), so that a refusal after that point is in the store's
# look with its way back; functions/pages.py scopes it to one request (`brand_scope`).
_current: ContextVar[Brand] = ContextVar("page_brand", default=UNBRANDED)


# The store's own words (the owner's translation files, docs/shop.md "Translation files"): by
# language (`de`, `pt-BR`), the catalogs' texts the owner words their way. A page use case names
# them with the store (`use_words`; storefront.theme.in_brand_of), an e-mail with its language
# (`speaking`); `translated` prints them over the catalogs.
Words = Mapping[str, Mapping[str, str]]
NO_WORDS: Words = MappingProxyType({})
_words: ContextVar[Words] = ContextVar("store_words", default=NO_WORDS)


def use_words(words: Words) -> None:
    """This request's pages (its problem page included) print the store's own words."""
    _words.set(words)


def use_brand(brand: Brand) -> Brand:
    """This request's pages (its problem page included) are in `brand`."""
    _current.set(brand)
    return brand


def current_brand() -> Brand:
    return _current.get()


@contextmanager
def brand_scope() -> Iterator[None]:
    """One request: unbranded until its use case names the store's brand, then forgotten."""
    token, words = _current.set(UNBRANDED), _words.set(NO_WORDS)
    try:
        yield
    finally:
        _current.reset(token)
        _words.reset(words)


def style_hash(style: str) -> str:
    """What a policy's `style-src` names to allow an inline stylesheet."""
    return base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()


STYLESHEET = "layout/player.css"


def stylesheet() -> str:
    """The pages' one stylesheet, as the layout inlines it."""
    return str(inline(STYLESHEET))


def stylesheet_hash() -> str:
    return asset_hash(STYLESHEET)


def page(template: str, /, *, brand: Brand, title: str, width: str = "", **context: Any) -> str:
    """A player-facing page: `template` (extending layout/player.html) in `brand`, its texts
    (`"…"|trans`) in the brand's language."""
    with speaking(brand.lang):
        return render(template, brand=brand, title=title, width=width, **context)


@contextmanager
def speaking(language: str, words: Words | None = None) -> Iterator[None]:
    """What is rendered (and `translated`) inside is in `language` (`de`, `pt-BR`): a hosted
    page's, an e-mail's (webstore.mail.compose); `words`: the store's own words for it (None:
    the ones this request's use case named)."""
    token = _rendering.set(language)
    own = _words.set(words) if words is not None else None
    try:
        yield
    finally:
        _rendering.reset(token)
        if own is not None:
            _words.reset(own)


# --- the language of the hosted pages (docs/shop.md, "The hosted pages") ---------------------
# The request's wishes (the HTTP side sets them: the switcher's pick carried as `?lang=` or the
# `webstore_lang` cookie, and Accept-Language), the store's language the default; the shop's
# catalogs translate the pages (`trans`, webstore.html.configure).
_requested: ContextVar[tuple[str, str]] = ContextVar("requested_language", default=("", ""))
_rendering: ContextVar[str] = ContextVar("rendering_language", default="en")


def request_language(chosen: str, accept_language: str) -> None:
    """This request's wishes: a language picked (`de`, or ""), the Accept-Language header."""
    _requested.set((chosen, accept_language))


def page_language(store_language: str) -> str:
    """A hosted page's language (`de`, `pt-BR`): the visitor's pick, else their browser's first
    language the shop's catalogs have, else the store's, else English (as the shop chooses)."""
    from webstore.shop.i18n import choose, html_lang

    chosen, accept_language = _requested.get()
    return html_lang(choose(accept_language, store_language, chosen))


def translated(text: object, **params: object) -> str:
    """`{{ "Pay now"|trans }}` on a house page: the text in the page's language (the shop's
    catalogs, the store owner's words over them), `%(name)s` placeholders filled; a text
    neither has prints as written. Escaped on output like any text (autoescape)."""
    from webstore.html.owner import translate
    from webstore.shop.i18n import html_lang, language_of, messages

    language, text = language_of(_rendering.get()) or "en", str(text)
    own = _words.get().get(html_lang(language), {})
    return translate(own if text in own else messages(language), text, params)


def problem_page(
    title: str,
    message: str,
    *,
    brand: Brand | None = None,
    lang: str | None = None,
    link: str | None = None,
    link_text: str = "",
) -> str:
    """A page that explains why there is nothing to do here, with a way on (see problem.html);
    in `brand`, by default the one this request's use case named (`use_brand`)."""
    brand = brand or current_brand()
    if not lang and brand == UNBRANDED:  # no store to take it from: the visitor's language
        lang = page_language("")
    if lang:
        brand = Brand(brand.name, brand.logo, brand.url, brand.theme, lang, brand.favicon)
    return page(
        "hosted/problem.html", brand=brand, title=title, message=message, link=link, link_text=link_text
    )


def content_security_policy(*form_targets: str, themes: tuple[str, ...] = (), images: bool = False) -> str:
    """Strict CSP. Browsers apply `form-action` to the redirect after a POST too, so the places
    a form may end up (a checked return URL's origin, or `http:`/`https:` for the checkout,
    whose return URLs are checked when the basket is made) are allowed there, and nowhere else.
    `themes`: further stylesheets of the page (a store's colours), allowed by their hashes;
    `images`: the page shows the store's images (logo, packages) from http(s) URLs."""
    allowed = " ".join(["'self'", *(_origin(t) for t in form_targets)])
    styles = " ".join(f"'sha256-{h}'" for h in (stylesheet_hash(), *(style_hash(t) for t in themes)))
    img = "img-src https: http:; " if images else ""
    return (
        f"default-src 'none'; style-src {styles}; {img}form-action {allowed}; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def _origin(target: str) -> str:
    if target.endswith(":"):  # a scheme source such as "https:"
        return target
    parts = urlsplit(target)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}"
