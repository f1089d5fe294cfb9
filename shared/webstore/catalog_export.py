"""A store written back as a catalog file (`webstore export`): the file and the table are two
views of one thing, so exporting and importing the result changes nothing.

Secrets: the checkout API key and the server secrets exist only as hashes, so no export has them;
a re-import of a file without them keeps the stored ones. Webhook signing secrets and Stripe keys
are sealed: an export opens them only when given the box (`--with-secrets`), otherwise it leaves
them out and a re-import keeps the sealed values it has. Runtime state an import keeps (gift card
balances, goal progress, coupon redemptions) is written as it stands; the import keeps it anyway.
"""

from __future__ import annotations

import json
from functools import partial
from typing import TYPE_CHECKING, Any

from webstore.catalog import CreatorCode, GiftCard, StoreProfile, WebhookEndpoint
from webstore.catalog_import import CatalogFile, ServerEntry, StoreSettings, WebhookEntry
from webstore.errors import NotFound
from webstore.gateway_settings import GatewaysSection
from webstore.repo.account import AccountRepository
from webstore.repo.definitions import DefinitionRepository, ImportedDefinitions
from webstore.repo.gift_cards import GiftCardRepository
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.sealing import open_sealed
from webstore.secret_box import SecretBox
from webstore.shop import translations
from webstore.shop.catalog_section import ShopSection

if TYPE_CHECKING:
    from webstore.repo import Table

# Where an exported file finds its JSON Schema: a copy beside it (`webstore catalog schema`).
SCHEMA_REF = "./catalog.schema.json"


def export_catalog(table: Table, account_id: int, box: SecretBox | None = None) -> CatalogFile:
    """The store's catalog as the table holds it (consistent reads), every section in id order.
    With `box`, webhook signing secrets and Stripe keys opened (SealBroken if the box is not the
    one that sealed them); without, left out. NotFound when there is no such store."""
    definitions = DefinitionRepository(table)
    found = definitions.imported(account_id)
    if found.store is None:
        raise NotFound(f"Store {account_id} not found")
    catalog = catalog_of(
        found,
        GiftCardRepository(table).all(account_id),
        definitions.creator_codes(account_id),
        box,
        revision=definitions.revision(account_id),
        shop=ShopSection.of(ShopThemeRepository(table).live(account_id)),
    )
    shop_translations = translations.documents(ShopThemeRepository(table).live(account_id))
    return catalog.model_copy(update={"shop_translations": shop_translations or None})


def catalog_of(
    found: ImportedDefinitions,
    gift_cards: list[GiftCard],
    creator_codes: list[CreatorCode] | None = None,
    box: SecretBox | None = None,
    *,
    revision: int | None = None,
    shop: ShopSection | None = None,
) -> CatalogFile:
    """The catalog file of what was read (a section not read is empty), in id order; `revision`:
    the catalog revision it was read at (an export carries it: an import then knows its age)."""
    store = found.store
    if store is None:
        raise NotFound("Store not found")
    profile = store.model_dump(include=set(StoreProfile.model_fields))
    return CatalogFile.model_validate(
        {
            "$schema": SCHEMA_REF,
            "revision": revision,
            "store": StoreSettings(**profile, public_token=store.public_token),
            "servers": [
                ServerEntry(id=s.id, name=s.name, next_check=s.next_check) for s in _by_id(found.servers)
            ],
            "categories": _by_id(found.categories),
            "packages": _by_id(found.packages),
            "sales": sorted(store.sales, key=lambda s: s.id),
            "pages": _by_id(found.pages),
            "coupons": _by_id(found.coupons),
            "gift_cards": sorted(gift_cards, key=lambda c: c.id),
            "creator_codes": creator_codes or [],
            "community_goals": _by_id(found.goals),
            "webhooks": [_webhook(item, box) for _, item in sorted(found.webhooks.items())],
            "gateways": GatewaysSection.of(store.gateways, partial(open_sealed, box) if box else None),
            "shop": shop,
        }
    )


def catalog_document(catalog: CatalogFile) -> dict[str, Any]:
    """The file's JSON: defaults left out (as a person writes it), amounts as strings."""
    return catalog.model_dump(mode="json", by_alias=True, exclude_defaults=True)


def catalog_text(catalog: CatalogFile) -> str:
    """The file as written: stable (same store, same bytes), diffable, UTF-8 as typed."""
    return json.dumps(catalog_document(catalog), indent=2, ensure_ascii=False) + "\n"


def _by_id(entities: dict[int, Any]) -> list[Any]:
    return [entities[i] for i in sorted(entities)]


def _webhook(item: dict[str, Any], box: SecretBox | None) -> WebhookEntry:
    """An endpoint as the file has it: the secret opened with `box`, else left out; never its
    validation (a re-import keeps that while URL and secret stay the same)."""
    if box is not None:
        endpoint = AccountRepository.webhook_endpoint(item, partial(open_sealed, box))
        secret: str | None = endpoint.secret
    else:
        endpoint = WebhookEndpoint.model_validate(
            {k: v for k, v in item.items() if k in WebhookEndpoint.model_fields}
        )
        secret = None
    return WebhookEntry(
        id=endpoint.id, url=endpoint.url, events=endpoint.events, secret=secret, disabled=endpoint.disabled
    )
