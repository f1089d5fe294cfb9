"""A store's shop templates (docs/shop.md, "Owner templates"): every saved version, and the
live theme the shop renders.

- **The live theme**: one item, `SHOPTPL#{account}`/`LIVE`, read by every shop page beside
  its Query of the store partition (the same round trip; kept out of the store partition so the
  storefront's and operator's reads of it do not carry templates). It holds, per template
  name, the published version's number and source, the last good source
  (the fallback when the published one fails at request time) and the newest version saved,
  plus a `revision` every change claims: two editors at once, the second is told to reload.
- **The owner's words** (`SHOPTPL#{account}`/`WORDS`): a copy of the live theme's translation
  files for the storefront's hosted pages and the e-mails, which read it beside the store item
  in their one round trip (docs/shop.md, "Translation files"); written by every change that
  changes the files, in its transaction, so the hosted pages never read the templates.
- **Versions**: one item per saved version in the store's own `SHOPTPL#{account}` partition,
  SK `{name}#{version:06d}`: written once, never changed; a name keeps its newest `HISTORY`
  versions (the save that writes version n deletes version n - HISTORY).

Every change is one transaction: the live item on condition of the revision the editor read,
the version written (if any), the one that falls out of the history deleted, and the audit entry.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING

from pydantic import Field

from webstore import keys
from webstore.catalog import Model, ShopBrand
from webstore.db import Item, Table, Transaction, from_item, to_item
from webstore.errors import Conflict, NotFound

if TYPE_CHECKING:  # the caller makes it: a shop page that only reads loads no audit log
    from webstore.repo.audit_log import Audit

HISTORY = 20  # versions kept per template name


class ShopLook(Model):
    """The theme without code (panel → Shop → Look; webstore.shop.look checks each field):
    "" leaves the store's own value (catalog logo, colours, the running sale's banner)."""

    logo: str = ""  # http(s) URL
    favicon: str = ""  # http(s) URL
    primary_color: str = ""  # #rrggbb
    accent_color: str = ""  # #rrggbb
    hero_text: str = ""
    sale_banner: str = ""
    package_layout: str = ""  # "", "grid", "list": every category's, else each category's own
    after_add: str = ""  # "": the basket after adding a package; "package": back to the package
    guest_prices: str = ""  # "": everyone sees prices; "hidden": only a logged-in player
    login: str = ""  # "": the shop's own log-in page; "hosted": the hosted auth page (shop.forms.login_page)
    header_style: str = ""  # "": banner (logo, name, menu under it); "compact": one slim bar; "centered"
    maintenance: str = ""  # "": the shop is open; "on": the maintenance page (webstore.shop.maintenance)
    maintenance_message: str = ""  # what the maintenance page says ("": the house's text)
    maintenance_allow: str = ""  # who still sees the shop: "203.0.113.7/32, Notch" (IPs, networks, names)


class ShopTheme(Model):
    """The live theme: what the shop renders (absent names are the house's default files)."""

    revision: int = 0
    published: dict[str, int] = {}  # name -> live version
    sources: dict[str, str] = {}  # name -> the live version's source
    last_good: dict[str, str] = {}  # name -> the fallback's source
    last_good_versions: dict[str, int] = {}  # name -> its version
    latest: dict[str, int] = {}  # name -> newest saved version
    changed_at: datetime | None = None
    look: ShopLook = Field(default_factory=ShopLook)
    # language (`de`, `pt-BR`) -> the owner's translation file as saved (webstore.shop.translations)
    translations: dict[str, str] = {}


class ShopWords(Model):
    """The owner's translation files as the hosted pages and e-mails read them: the live theme's
    `translations` (language → file text), copied."""

    translations: dict[str, str] = {}


# language (`de`, `pt-BR`) → text of the catalogs → the owner's wording
Words = dict[str, dict[str, str]]


def file_texts(text: str | None) -> dict[str, str]:
    """A translation file's texts (checked when saved: read as they are; {} for none)."""
    if not text:
        return {}
    try:
        found = json.loads(text)
    except ValueError:
        return {}
    if not isinstance(found, dict):
        return {}
    return {k: v for k, v in found.items() if isinstance(v, str)}


def words_of(item: Mapping[str, object] | None) -> Words:
    """The owner's words of a `WORDS` item (none without it), by language."""
    if item is None:
        return {}
    files = from_item(ShopWords, item).translations
    return {code: texts for code, text in files.items() if (texts := file_texts(text))}


class TemplateVersion(Model):
    name: str
    version: int
    source: str
    saved_at: datetime
    actor: str


def shop_brand(look: ShopLook) -> ShopBrand:
    """What of the look the hosted pages wear (the store item's copy)."""
    return ShopBrand(
        logo=look.logo, favicon=look.favicon, primary_color=look.primary_color, accent_color=look.accent_color
    )


def versions_pk(account_id: int) -> str:
    return f"SHOPTPL#{account_id}"


def version_sk(name: str, version: int) -> str:
    return f"{name}#{version:06d}"


LIVE = "LIVE"  # sorts after every `{name}#…` version (names start with a lower-case letter)
WORDS = "WORDS"  # the translation files' copy for the hosted pages and e-mails


def theme_key(account_id: int) -> dict[str, str]:
    return keys.key(versions_pk(account_id), LIVE)


def words_key(account_id: int) -> dict[str, str]:
    return keys.key(versions_pk(account_id), WORDS)


def theme_of(item: Item | None) -> ShopTheme:
    return ShopTheme() if item is None else from_item(ShopTheme, item)


STALE = Conflict("The shop's templates changed meanwhile (another editor?); reload and try again")


class ShopThemeRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def live(self, account_id: int) -> ShopTheme:
        """The live theme as the editor reads it (consistent: it claims its revision)."""
        return theme_of(self.table.get(theme_key(account_id), consistent=True))

    def shown(self, account_id: int) -> ShopTheme:
        """The live theme as a shop page reads it (eventually consistent, beside its other reads)."""
        return theme_of(self.table.get(theme_key(account_id)))

    def versions(self, account_id: int, name: str) -> list[TemplateVersion]:
        """The name's saved versions, newest first (one Query; at most HISTORY of them)."""
        items, _ = self.table.query(
            versions_pk(account_id), sk_prefix=f"{name}#", forward=False, limit=HISTORY, consistent=True
        )
        return [from_item(TemplateVersion, i) for i in items]

    def version(self, account_id: int, name: str, version: int) -> TemplateVersion:
        item = self.table.get(keys.key(versions_pk(account_id), version_sk(name, version)), consistent=True)
        if item is None:
            raise NotFound(f"{name} has no version {version} (only the newest {HISTORY} are kept)")
        return from_item(TemplateVersion, item)

    def change(
        self,
        account_id: int,
        seen: ShopTheme,
        new: ShopTheme,
        saved: list[TemplateVersion],
        audit: Audit,
    ) -> None:
        """Write `new` (its revision one past `seen`'s) if the live theme is still at `seen`'s
        revision, with the versions `saved` (and the ones leaving the history deleted) and the
        audit entry: one transaction. Conflict when someone changed the theme meanwhile."""
        tx = Transaction(self.table)
        item = to_item(new, versions_pk(account_id), LIVE, "shop_theme")
        if seen.revision == 0:
            tx.put(item, condition="attribute_not_exists(PK)", fails=STALE)
        else:
            tx.put(item, condition="revision = :seen", values={":seen": seen.revision}, fails=STALE)
        for version in saved:
            tx.put(
                to_item(
                    version, versions_pk(account_id), version_sk(version.name, version.version), "shop_tpl"
                ),
                condition="attribute_not_exists(PK)",
                fails=STALE,
            )
            if version.version > HISTORY:
                tx.delete(
                    keys.key(versions_pk(account_id), version_sk(version.name, version.version - HISTORY))
                )
        brand = shop_brand(new.look)
        if brand != shop_brand(seen.look):  # the hosted pages' copy (webstore.catalog.ShopBrand)
            tx.update(
                keys.key(keys.store_pk(account_id), keys.STORE_ITEM),
                "SET shop_brand = :brand",
                condition="attribute_exists(PK)",
                values={":brand": brand.model_dump()},
                fails=NotFound("Store not found"),
            )
        if new.translations != seen.translations:  # the hosted pages' and e-mails' copy (ShopWords)
            if new.translations:
                words = ShopWords(translations=new.translations)
                tx.put(to_item(words, versions_pk(account_id), WORDS, "shop_words"))
            else:
                tx.delete(words_key(account_id))
        audit.add_to(tx, account_id)
        tx.commit()

    def words(self, account_id: int) -> Words:
        """The owner's words as the hosted pages read them (one GetItem; none without files)."""
        return words_of(self.table.get(words_key(account_id)))
