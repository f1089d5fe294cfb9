"""Owners' translation files (docs/shop.md, "Translation files"): per store and language, a JSON
object of the shop's texts the owner words their own way, as on Tebex:

    {"Log in": "Einloggen", "Basket (%(count)s)": "Korb (%(count)s)"}

A key is a text of the shop as the templates write it (English: the catalogs' message ids, or
a `"…"|trans` text of the store's own published templates); a value is what pages print
instead, in that language, over the built-in catalog. A value keeps its key's placeholders
(`%(count)s`: none added, none unknown). A file is checked whole before it is stored; a
mistake is refused naming its line or key, nothing stored.

Stored like the templates (webstore.repo.shop_theme): the live text in the live theme's item
(`ShopTheme.translations`, so a page has it in its one round trip), each save a version
(`translations/<lang>.json`, the newest 20 kept). HTTP-free; the panel's Shop → Translations
pages call these.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from webstore.errors import Invalid, NotFound
from webstore.repo.shop_theme import STALE, ShopTheme, ShopThemeRepository, TemplateVersion, file_texts
from webstore.shop.i18n import LANGUAGE_NAMES, LANGUAGES, html_lang, messages

if TYPE_CHECKING:
    from webstore.repo import Table
    from webstore.services import Services

CODES = tuple(html_lang(code) for code in LANGUAGES)  # en, de, fr, es, pt-BR
MAX_FILE_CHARS = 32_000
MAX_TEXT_CHARS = 2_000  # one translated text
PLACEHOLDER = re.compile(r"%\((\w+)\)s")
TRANS = re.compile(r'"((?:[^"\\]|\\.)*)"\s*\|\s*trans\b')  # as scripts/shop_messages.py finds them


def file_name(code: str) -> str:
    return f"translations/{code}.json"


def language(code: str) -> str:
    """`code` if the shop speaks it (`de`, `pt-BR`); NotFound otherwise."""
    if code not in CODES:
        raise NotFound(f"The shop has no language {code[:20]!r} (it speaks {', '.join(CODES)})")
    return code


def name(code: str) -> str:
    return LANGUAGE_NAMES[code.replace("-", "_")]


def known_texts(theme: ShopTheme) -> frozenset[str]:
    """The texts a file may word: the catalogs' (every language has them all) and the `trans`
    texts of the store's own published templates."""
    own = {match.group(1) for source in theme.sources.values() for match in TRANS.finditer(source)}
    return frozenset(messages("de")) | own


def _line_of(text: str, key: str) -> int:
    """The line of the file where `key` is written (1 if it cannot be told)."""
    at = text.find(json.dumps(key, ensure_ascii=False))
    if at < 0:
        at = text.find(json.dumps(key))
    return text.count("\n", 0, at) + 1 if at >= 0 else 1


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise Invalid(f"{key!r} is given twice", field="translations")
        seen[key] = value
    return seen


def parse(code: str, text: str, known: frozenset[str]) -> dict[str, str]:
    """The file's texts, or Invalid naming the file and the line or key of its first mistake."""
    where = file_name(code)
    if len(text) > MAX_FILE_CHARS:
        raise Invalid(
            f"{where} is {len(text):,} characters; a file may have {MAX_FILE_CHARS:,}", field="text"
        )
    try:
        document = json.loads(text or "{}", object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as error:
        raise Invalid(
            f"{where} is not JSON: line {error.lineno} column {error.colno}: {error.msg}", field="text"
        ) from None
    except Invalid as error:
        raise Invalid(f"{where}: {error.detail}", field="text") from None
    if not isinstance(document, dict):
        raise Invalid(f'{where} should be one JSON object: {{"Log in": "…"}}', field="text")
    for key, value in document.items():
        line = _line_of(text, key)
        if key not in known:
            raise Invalid(f"{where} line {line}: {key!r} is not a text of the shop", field="text")
        if not isinstance(value, str) or not value.strip():
            raise Invalid(f"{where} line {line}: {key!r} should be given a text", field="text")
        if len(value) > MAX_TEXT_CHARS:
            raise Invalid(f"{where} line {line}: {key!r} is longer than {MAX_TEXT_CHARS:,} characters")
        unknown = sorted(set(PLACEHOLDER.findall(value)) - set(PLACEHOLDER.findall(key)))
        if unknown:
            names = ", ".join(f"%({p})s" for p in unknown)
            raise Invalid(f"{where} line {line}: {key!r} has no placeholder {names}", field="text")
        if PLACEHOLDER.search(key):
            try:
                value % dict.fromkeys(PLACEHOLDER.findall(key), "")
            except (ValueError, TypeError, KeyError):
                raise Invalid(
                    f"{where} line {line}: {key!r}: a % that is not a placeholder is written %%", field="text"
                ) from None
    return document


def owner_texts(theme: ShopTheme, code: str) -> Mapping[str, str]:
    """The owner's texts of a language (checked when saved: read as they are)."""
    return MappingProxyType(file_texts(theme.translations.get(code)))


def page_texts(theme: ShopTheme, language: str) -> Mapping[str, str]:
    """A page's texts in `language` (gettext's name): the catalog's, the owner's over them."""
    own = owner_texts(theme, html_lang(language))
    built_in = messages(language)
    return MappingProxyType({**built_in, **own}) if own else built_in


def save(
    services: Services,
    account_id: int,
    code: str,
    text: str,
    *,
    seen_revision: int,
    actor: str,
    now: datetime,
) -> int:
    """Store the file of `code` as its next version and serve it at once (checked first; an
    empty file serves the catalogs alone): one transaction with the audit entry. Its version."""
    from webstore.repo.audit_log import Audit  # here: every shop page reads the texts (`page_texts`)

    code = language(code)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    repository = ShopThemeRepository(services.table)
    live = repository.live(account_id)
    if live.revision != seen_revision:
        raise STALE
    parse(code, text, known_texts(live))
    name_ = file_name(code)
    version = live.latest.get(name_, 0) + 1
    new = live.model_copy(deep=True)
    new.revision, new.changed_at = live.revision + 1, now
    new.latest[name_] = version
    if text.strip() in ("", "{}"):
        new.translations.pop(code, None)
    else:
        new.translations[code] = text
    fits(new)
    saved = TemplateVersion(name=name_, version=version, source=text, saved_at=now, actor=actor)
    audit = Audit(actor, "shop.translations.save", f"{name_}: version {version} saved and published", now)
    repository.change(account_id, live, new, [saved], audit)
    return version


def fits(theme: ShopTheme) -> None:
    """The live item stays within DynamoDB's 400 KB: templates and translations together."""
    from webstore.shop.theme import MAX_THEME_CHARS

    size = sum(map(len, theme.sources.values())) + sum(map(len, theme.last_good.values()))
    size += sum(map(len, theme.translations.values()))
    if size > MAX_THEME_CHARS:
        raise Invalid(
            f"The published templates, their fallbacks and the translation files would be {size:,} "
            f"characters; a theme may have {MAX_THEME_CHARS:,}"
        )


def documents(theme: ShopTheme) -> dict[str, dict[str, str]]:
    """Every language's file as data (the catalog file's `shop_translations`), by language."""
    return {code: dict(owner_texts(theme, code)) for code in sorted(theme.translations)}


def checked_documents(theme: ShopTheme, given: Mapping[str, Any]) -> dict[str, str]:
    """A catalog file's `shop_translations` as the texts to store (language → file text),
    every file checked as the editor checks it; Invalid naming the first mistake."""
    known = known_texts(theme)
    texts: dict[str, str] = {}
    for code, document in sorted(given.items()):
        if code not in CODES:
            raise Invalid(
                f"shop_translations: the shop has no language {code!r} (it speaks {', '.join(CODES)})"
            )
        text = json.dumps(document, indent=2, ensure_ascii=False) + "\n"
        parse(code, text, known)
        if document:
            texts[code] = text
    return texts


def check_all(table: Table, account_id: int, given: Mapping[str, Any]) -> None:
    """A catalog file's `shop_translations` checked before its import writes anything."""
    checked_documents(ShopThemeRepository(table).live(account_id), given)


def replace_all(
    table: Table, account_id: int, given: Mapping[str, Any], *, actor: str, now: datetime
) -> list[str]:
    """Serve exactly the files `given` (a catalog import: a language it leaves out goes back to
    the catalogs alone), each changed one saved as a version. The languages changed."""
    from webstore.repo.audit_log import Audit  # here: every shop page reads the texts (`page_texts`)

    repository = ShopThemeRepository(table)
    live = repository.live(account_id)
    texts = checked_documents(live, given)
    changed = sorted(
        c for c in set(texts) | set(live.translations) if texts.get(c) != live.translations.get(c)
    )
    if not changed:
        return []
    new = live.model_copy(deep=True)
    new.revision, new.changed_at = live.revision + 1, now
    saved = []
    for code in changed:
        name_ = file_name(code)
        version = live.latest.get(name_, 0) + 1
        new.latest[name_] = version
        if code in texts:
            new.translations[code] = texts[code]
        else:
            new.translations.pop(code, None)
        source = texts.get(code, "")
        saved.append(TemplateVersion(name=name_, version=version, source=source, saved_at=now, actor=actor))
    fits(new)
    audit = Audit(actor, "shop.translations.import", f"translations imported: {', '.join(changed)}", now)
    repository.change(account_id, live, new, saved, audit)
    return changed
