"""Store set-up from a catalog file: no interface creates categories or packages, this does.

Re-importing updates in place: definitions are overwritten, runtime state is kept (the
public token, key and server secrets once issued, coupon redemptions, gift card balances,
goal progress, a webhook endpoint's validation while its URL and secret stay the same).
Credentials are generated on first import (or taken from the file) and returned once; only
their hashes are stored.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from pydantic import Field

from webstore import keys
from webstore.catalog import (
    Category,
    CommunityGoal,
    Coupon,
    CreatorCode,
    GiftCard,
    Model,
    Package,
    Page,
    Sale,
    Server,
    Store,
    StoreProfile,
    WebhookEndpoint,
)
from webstore.gateway_settings import GatewaysSection
from webstore.repo.account import AccountRepository
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.repo.webhooks import WebhookRepository
from webstore.secret_box import SecretBox, secret_box
from webstore.settings import get_settings

if TYPE_CHECKING:
    from webstore.db import Table

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)


class StoreSettings(StoreProfile):
    """The store section of a catalog file: Store without what the import issues itself."""

    # Optional fixed credentials (local development); generated when absent.
    public_token: str | None = None
    checkout_api_key: str | None = None


class ServerEntry(Model):
    id: int = Field(ge=1, le=keys.INT32_MAX)
    name: str
    next_check: int = 60
    secret: str | None = None  # optional fixed secret (local development)


class CatalogFile(Model):
    store: StoreSettings
    servers: list[ServerEntry] = Field(default_factory=list)
    categories: list[Category] = Field(default_factory=list)
    packages: list[Package] = Field(default_factory=list)
    sales: list[Sale] = Field(default_factory=list)
    pages: list[Page] = Field(default_factory=list)
    coupons: list[Coupon] = Field(default_factory=list)
    gift_cards: list[GiftCard] = Field(default_factory=list)
    creator_codes: list[CreatorCode] = Field(default_factory=list)
    community_goals: list[CommunityGoal] = Field(default_factory=list)
    webhooks: list[WebhookEndpoint] = Field(default_factory=list)
    gateways: GatewaysSection = Field(default_factory=GatewaysSection)

    def check_references(self) -> None:
        category_ids = {c.id for c in self.categories}
        server_ids = {s.id for s in self.servers}
        for category in self.categories:
            if category.parent_id is not None and category.parent_id not in category_ids:
                raise ValueError(f"category {category.id}: parent {category.parent_id} is not in the file")
        for package in self.packages:
            if package.category_id not in category_ids:
                raise ValueError(f"package {package.id}: category {package.category_id} is not in the file")
            for command in package.commands:
                if command.server_id not in server_ids:
                    raise ValueError(f"package {package.id}: server {command.server_id} is not in the file")
        for label, items in (
            ("category", self.categories),
            ("package", self.packages),
            ("coupon", self.coupons),
        ):
            ids = [i.id for i in items]
            if len(ids) != len(set(ids)):
                raise ValueError(f"duplicate {label} ids")
        codes = [c.code.upper() for c in self.coupons]
        if len(codes) != len(set(codes)):
            raise ValueError("duplicate coupon codes")


@dataclass
class ImportResult:
    account_id: int
    public_token: str
    checkout_api_key: str | None  # None: kept from an earlier import (only its hash is stored)
    server_secrets: dict[int, str | None] = field(default_factory=dict)  # None: kept


def parse_catalog(data: dict[str, Any]) -> CatalogFile:
    catalog = CatalogFile.model_validate(_with_timestamps(data))
    catalog.check_references()
    return catalog


def _with_timestamps(data: dict[str, Any]) -> dict[str, Any]:
    """Catalog files may leave out created/updated times; fill them with a fixed epoch."""
    stamped = dict(data)
    for section in ("packages", "pages", "community_goals"):
        stamped[section] = [
            {"created_at": EPOCH.isoformat(), "updated_at": EPOCH.isoformat(), **entry}
            for entry in data.get(section, [])
        ]
    for section in ("coupons", "gift_cards"):
        stamped[section] = [{"created_at": EPOCH.isoformat(), **entry} for entry in data.get(section, [])]
    stamped["gift_cards"] = [
        {"starting_balance": entry.get("balance", 0), **entry} for entry in stamped.get("gift_cards", [])
    ]
    return stamped


def import_catalog(
    table: Table, catalog: CatalogFile, now: datetime | None = None, box: SecretBox | None = None
) -> ImportResult:
    """Write the catalog into the table. Webhook signing secrets and Stripe keys are sealed
    with `box` (default: the box the settings name; asked for its key only when there are some)."""
    now = now or datetime.now(UTC)
    settings = catalog.store
    account_id = settings.id
    stores = StoreRepository(table)
    accounts = AccountRepository(table)
    definitions = DefinitionRepository(table)

    existing = definitions.existing_store(account_id)
    public_token = (
        settings.public_token
        or (existing.public_token if existing else None)
        or keys.new_public_token(account_id)
    )
    if keys.account_of(public_token) != account_id:
        raise ValueError("store.public_token does not belong to store.id")
    checkout_key = settings.checkout_api_key
    if checkout_key is None and existing is None:
        checkout_key = keys.new_secret()
    checkout_hash = keys.hash_secret(checkout_key) if checkout_key else existing.checkout_key_hash  # type: ignore[union-attr]

    fields = settings.model_dump(exclude={"public_token", "checkout_api_key"})
    box = box or secret_box(get_settings())
    store = Store(
        **fields,
        sales=catalog.sales,
        created_at=existing.created_at if existing else now,
        public_token=public_token,
        checkout_key_hash=checkout_hash,
        gateways=catalog.gateways.sealed(box),  # Stripe secrets sealed (the box's key: only then)
    )
    items = [stores.store_item(store)]
    for entity in (*catalog.categories, *catalog.packages, *catalog.pages):
        items.append(stores.entity_item(account_id, entity))
    for code in catalog.creator_codes:
        items.append(accounts.creator_code_item(account_id, code))
    # Re-importing an endpoint unchanged (same id, URL and secret) keeps it validated; a new URL
    # or secret must pass the handshake again.
    validated = (
        {
            (e.id, str(e.url), e.secret)
            for e in WebhookRepository(table, box).endpoints(account_id, consistent=True)
            if e.validated
        }
        if catalog.webhooks
        else set()
    )
    for endpoint in catalog.webhooks:
        if (endpoint.id, str(endpoint.url), endpoint.secret) in validated:
            endpoint = endpoint.model_copy(update={"validated": True})
        items.append(accounts.webhook_item(account_id, endpoint, box))
    definitions.overwrite(items)
    for goal in catalog.community_goals:
        definitions.upsert(
            stores.entity_item(account_id, goal), keep=("current", "times_achieved", "last_achieved")
        )
    for card in catalog.gift_cards:
        definitions.upsert(accounts.giftcard_item(account_id, card), keep=("balance",))
    for coupon in catalog.coupons:
        # Definition fields change, the redemption count stays.
        for item in accounts.coupon_items(account_id, coupon):
            definitions.upsert(item)

    secrets: dict[int, str | None] = {}
    for entry in catalog.servers:
        previous = accounts.server(account_id, entry.id)
        secret = entry.secret or (None if previous and previous.secret_hash else keys.new_secret())
        secret_hash = keys.hash_secret(secret) if secret else previous.secret_hash  # type: ignore[union-attr]
        server = Server(id=entry.id, name=entry.name, next_check=entry.next_check, secret_hash=secret_hash)
        accounts.save_server(account_id, server, previous.secret_hash if previous else None)
        secrets[entry.id] = secret

    if catalog.coupons:
        accounts.recount_coupons(account_id)
    for sequence, entries in (
        ("coupon", catalog.coupons),
        ("giftcard", catalog.gift_cards),
        ("webhook", catalog.webhooks),
        ("goal", catalog.community_goals),
    ):
        if entries:
            accounts.raise_sequence(account_id, sequence, max(e.id for e in entries))
    return ImportResult(account_id, public_token, checkout_key, secrets)
