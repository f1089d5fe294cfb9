"""Store set-up from a catalog file: no interface creates categories or packages, this does.

Re-importing updates in place: definitions are overwritten, runtime state is kept (the
public token, key and server secrets once issued, coupon redemptions, gift card balances,
goal progress, a webhook endpoint's validation while its URL and secret stay the same).
Credentials are generated on first import (or taken from the file) and returned once; only
their hashes are stored.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import Field, HttpUrl

from webstore import keys
from webstore.catalog import (
    Category,
    CommunityGoal,
    Coupon,
    CreatorCode,
    GiftCard,
    GoalStatus,
    Int32,
    Model,
    Package,
    PackageType,
    Page,
    Sale,
    ShopBrand,
    Store,
    StoreProfile,
    WebhookEndpoint,
)
from webstore.catalog_changes import EntityChange, write_changes
from webstore.catalog_diff import field_changes
from webstore.catalog_rules import target_problems
from webstore.gateway_settings import GatewaysSection
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_edits import CatalogEdits
from webstore.repo.definitions import DefinitionRepository, ImportedDefinitions
from webstore.repo.webhooks import WebhookRepository
from webstore.sealing import open_sealed, seal
from webstore.secret_box import SealBroken, SecretBox, secret_box
from webstore.servers import Server
from webstore.settings import get_settings
from webstore.shop import translations
from webstore.shop.catalog_section import ShopSection

if TYPE_CHECKING:
    from webstore.repo import Item, Table
    from webstore.shop.theme import CatalogTheme

EPOCH = datetime(2024, 1, 1, tzinfo=UTC)
# Who and what an import is in the audit log (the panel's edits name the staff member instead).
IMPORT_ACTOR = "import"
IMPORT_ACTION = "catalog.import"


class StoreSettings(StoreProfile):
    """The store section of a catalog file: Store without what the import issues itself."""

    # Required in a file (a store priced in a currency its operator never chose is a mistake).
    currency: str = Field(min_length=3, max_length=3)
    # Optional fixed credentials (local development); generated when absent.
    public_token: str | None = None
    checkout_api_key: str | None = None


class ServerEntry(Model):
    id: int = Field(ge=1, le=keys.INT32_MAX)
    name: str
    next_check: int = 60
    secret: str | None = None  # optional fixed secret (local development)


class WebhookEntry(Model):
    """A webhook endpoint in a catalog file. Without `secret` a re-import keeps the endpoint's
    signing secret as stored (`webstore export` leaves secrets out); a new endpoint needs one."""

    id: Int32
    url: HttpUrl
    events: list[str] = Field(default_factory=list)  # which webhook types it receives; empty: all
    secret: str | None = Field(default=None, min_length=1)
    validated: bool = False
    disabled: bool = False  # receives nothing while true

    def endpoint(self, secret: str) -> WebhookEndpoint:
        return WebhookEndpoint(**self.model_dump(exclude={"secret"}), secret=secret)


class SecretMissing(ValueError):
    """A secret the file leaves out that the table has no value of to keep (nothing written)."""


# A problem in a catalog file: where (a path into the JSON document) and what.
Location = tuple[str | int, ...]
Problem = tuple[Location, str]


class CatalogFile(Model):
    # The JSON Schema an editor checks the file against (`webstore catalog schema`); not stored.
    schema_ref: str | None = Field(default=None, alias="$schema")
    # The store's catalog revision when `webstore export` wrote the file: importing a file older
    # than the store (changed since, in the panel or another way) stops with the difference.
    revision: int | None = Field(default=None, ge=0)
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
    webhooks: list[WebhookEntry] = Field(default_factory=list)
    gateways: GatewaysSection = Field(default_factory=GatewaysSection)
    # The shop's look and the owner's templates (docs/shop.md); absent: the shop's stay as they are.
    shop: ShopSection | None = None
    # The shop's translation files (docs/shop.md): language -> {text: the owner's wording}.
    # Absent: an import leaves the store's as they are; present: the store has exactly these.
    shop_translations: dict[str, dict[str, str]] | None = None

    def problems(self) -> list[Problem]:
        """What the models alone cannot see: references between sections and uniqueness."""
        found: list[Problem] = []
        category_ids = {c.id for c in self.categories}
        package_ids = {p.id for p in self.packages}
        server_ids = {s.id for s in self.servers}
        for n, category in enumerate(self.categories):
            if category.parent_id is not None and category.parent_id not in category_ids:
                found.append(
                    (("categories", n, "parent_id"), f"category {category.parent_id} is not in the catalog")
                )
        for n, package in enumerate(self.packages):
            if package.category_id not in category_ids:
                found.append(
                    (("packages", n, "category_id"), f"category {package.category_id} is not in the catalog")
                )
            if package.type == PackageType.SUBSCRIPTION and package.expiry_length == 0:
                found.append(
                    (
                        ("packages", n, "expiry_length"),
                        "a subscription needs a period: expiry_length 1 or more",
                    )
                )
            for c, command in enumerate(package.commands):
                if command.server_id not in server_ids:
                    where: Location = ("packages", n, "commands", c, "server_id")
                    found.append((where, f"server {command.server_id} is not in the catalog"))
        discounts: list[tuple[str, Sequence[Sale | Coupon]]] = [
            ("sales", self.sales),
            ("coupons", self.coupons),
        ]
        for section, entries in discounts:
            for n, entry in enumerate(entries):
                effective = entry.effective
                for field_name, index, message in target_problems(
                    effective.type,
                    effective.packages,
                    effective.categories,
                    package_exists=package_ids.__contains__,
                    category_exists=category_ids.__contains__,
                ):
                    where = (section, n, "effective", field_name, *([] if index is None else [index]))
                    found.append((where, message))
        for section, attribute in UNIQUE:
            seen: dict[Any, int] = {}
            for n, entry in enumerate(getattr(self, section)):
                value = getattr(entry, attribute)
                if value is None:
                    continue
                value = value.upper() if attribute == "code" else value
                if value in seen:
                    message = f"duplicate {attribute} {value!r} (also {section}[{seen[value]}])"
                    found.append(((section, n, attribute), message))
                else:
                    seen[value] = n
        return found

    def check_references(self) -> None:
        """Raise ValueError naming the first problem (callers wanting all use `problems`)."""
        for location, message in self.problems():
            raise ValueError(f"{'.'.join(map(str, location))}: {message}")


# What must be unique within a section (coupon and gift card codes are compared uppercased).
UNIQUE: tuple[tuple[str, str], ...] = (
    ("servers", "id"),
    ("categories", "id"),
    ("categories", "slug"),
    ("packages", "id"),
    ("packages", "slug"),
    ("sales", "id"),
    ("pages", "id"),
    ("pages", "slug"),
    ("coupons", "id"),
    ("coupons", "code"),
    ("gift_cards", "id"),
    ("creator_codes", "code"),
    ("community_goals", "id"),
    ("webhooks", "id"),
)


# The kinds of catalog entities a re-import makes equal to the file, in summary order.
KINDS = (
    "store",
    "gateways",
    "shop",
    "package",
    "category",
    "page",
    "coupon",
    "sale",
    "goal",
    "server",
    "webhook",
)
PLURALS = {"category": "categories"}
# Kinds there is one of: named without a count (`~store settings`).
SINGLE = {"store": "store settings", "gateways": "payment gateways", "shop": "shop look and templates"}


@dataclass
class CatalogChanges:
    """What an import changes, by kind: ids added, changed (definition differs) and removed."""

    added: dict[str, list[int]] = field(default_factory=dict)
    changed: dict[str, list[int]] = field(default_factory=dict)
    removed: dict[str, list[int]] = field(default_factory=dict)
    # One line an element: `~ package 10 "VIP": price: "4.99" → "9.99"`, `+ page 3`, `- server 2`.
    details: list[str] = field(default_factory=list)

    @property
    def empty(self) -> bool:
        return not (self.added or self.changed or self.removed)

    def summary(self) -> str:
        """`+2 packages, ~1 coupon, -1 package`, or `no changes`."""
        parts = [
            f"{sign}{SINGLE[kind]}"
            if kind in SINGLE
            else f"{sign}{len(ids)} {kind if len(ids) == 1 else PLURALS.get(kind, kind + 's')}"
            for sign, by_kind in (("+", self.added), ("~", self.changed), ("-", self.removed))
            for kind in KINDS
            if (ids := by_kind.get(kind))
        ]
        return ", ".join(parts) or "no changes"


@dataclass
class ImportResult:
    account_id: int
    public_token: str
    checkout_api_key: str | None  # None: kept from an earlier import (only its hash is stored)
    server_secrets: dict[int, str | None] = field(default_factory=dict)  # None: kept
    changes: CatalogChanges = field(default_factory=CatalogChanges)
    revision: int = 0  # the store's catalog revision after the import


class StaleCatalog(ValueError):
    """The file is older than the store (its `revision` is behind the store's) and importing it
    would change what was changed since: nothing written; `--force` applies it anyway."""

    def __init__(self, changes: CatalogChanges, file_revision: int, store_revision: int) -> None:
        super().__init__(
            f"the file is at catalog revision {file_revision}, the store at {store_revision}: it was "
            "changed since the file was exported, and importing the file would undo that"
        )
        self.changes = changes
        self.file_revision = file_revision
        self.store_revision = store_revision


def parse_catalog(data: dict[str, Any]) -> CatalogFile:
    catalog = CatalogFile.model_validate(_with_timestamps(data))
    catalog.check_references()
    return catalog


# Fields a catalog file may leave out, filled in before validation (the JSON Schema marks them optional).
FILLED_IN: dict[str, tuple[str, ...]] = {
    "packages": ("created_at", "updated_at"),
    "pages": ("created_at", "updated_at"),
    "community_goals": ("created_at", "updated_at"),
    "coupons": ("created_at",),
    "gift_cards": ("created_at", "starting_balance"),
}


def _with_timestamps(data: dict[str, Any]) -> dict[str, Any]:
    """Catalog files may leave out created/updated times (a fixed epoch) and a gift card's
    starting balance (its balance). Anything malformed is left for validation to name."""
    stamped = dict(data)
    defaults = {"created_at": EPOCH.isoformat(), "updated_at": EPOCH.isoformat()}
    for section, names in FILLED_IN.items():
        entries = data.get(section)
        if not isinstance(entries, list):
            continue
        stamped[section] = [
            {
                **{n: defaults.get(n, entry.get("balance", 0)) for n in names},
                **entry,
            }
            if isinstance(entry, dict)
            else entry
            for entry in entries
        ]
    return stamped


# Fields an import keeps (runtime state), left out when comparing a stored entity with the file.
RUNTIME_FIELDS = {
    "package": {"created_at", "updated_at"},
    "page": {"created_at", "updated_at"},
    "goal": {"created_at", "updated_at", "current", "times_achieved", "last_achieved"},
    "coupon": {"created_at"},
}


def plan_changes(
    existing: ImportedDefinitions, catalog: CatalogFile, box: SecretBox | None, *, force: bool = False
) -> CatalogChanges:
    """Compare the file with what the table holds; `box` opens stored webhook secrets (needed
    only when the file or the table has webhooks). What the file no longer has is removed only
    when an earlier file brought it (what was made in the panel or the operator interface stays),
    or with `force`, whatever made it."""
    changes = CatalogChanges()

    def brought(kind: str, entities: dict[int, Any]) -> dict[int, Any]:
        if force or existing.brought is None or kind == "coupon":  # coupons: `imported_coupons`
            return entities
        return {i: e for i, e in entities.items() if i in existing.brought.get(kind, set())}

    sales = {s.id: s for s in existing.store.sales} if existing.store else {}
    active_packages = {i: p for i, p in existing.packages.items() if not p.disabled}
    active_goals = {i: g for i, g in existing.goals.items() if g.status != GoalStatus.DISABLED}
    removable_coupons = {i: c for i, c in existing.coupons.items() if i in existing.imported_coupons}
    in_file = {w.id for w in catalog.webhooks}
    webhooks = {i: _opened(item, box) if i in in_file else None for i, item in existing.webhooks.items()}

    def compare(kind: str, new: list[Any], old: dict[int, Any], removable: dict[int, Any], same: Any) -> None:
        removable = brought(kind, removable)
        for entity in new:
            if entity.id not in old:
                changes.added.setdefault(kind, []).append(entity.id)
                changes.details.append(f"+ {kind} {entity.id}{_named(entity)}")
            elif not same(entity, old[entity.id]):
                changes.changed.setdefault(kind, []).append(entity.id)
                changes.details.append(
                    f"~ {kind} {entity.id}{_named(entity)}{_differences(kind, old[entity.id], entity)}"
                )
        gone = sorted(set(removable) - {e.id for e in new})
        if gone:
            changes.removed[kind] = gone
            changes.details.extend(f"- {kind} {i}{_named(removable[i])}" for i in gone)

    def same_definition(kind: str) -> Any:
        runtime = RUNTIME_FIELDS.get(kind, set())
        return lambda new, old: new.model_dump(exclude=runtime) == old.model_dump(exclude=runtime)

    def same_server(new: ServerEntry, old: Server) -> bool:
        rotated = new.secret is not None and keys.hash_secret(new.secret) != old.secret_hash
        return new.name == old.name and new.next_check == old.next_check and not rotated

    def same_webhook(new: WebhookEntry, old: WebhookEndpoint | None) -> bool:
        return old is not None and (str(new.url), new.events, new.secret or old.secret) == (
            str(old.url),
            old.events,
            old.secret,
        )

    _compare_store(existing, catalog, box, changes)
    compare("package", catalog.packages, existing.packages, active_packages, same_definition("package"))
    compare(
        "category", catalog.categories, existing.categories, existing.categories, same_definition("category")
    )
    compare("page", catalog.pages, existing.pages, existing.pages, same_definition("page"))
    compare("coupon", catalog.coupons, existing.coupons, removable_coupons, same_definition("coupon"))
    compare("sale", catalog.sales, sales, sales, same_definition("sale"))
    compare("goal", catalog.community_goals, existing.goals, active_goals, same_definition("goal"))
    compare("server", catalog.servers, existing.servers, existing.servers, same_server)
    removable_webhooks = {i: w for i, w in existing.webhooks.items() if i not in existing.pinned_webhooks}
    compare("webhook", catalog.webhooks, webhooks, removable_webhooks, same_webhook)
    return changes


def _compare_store(
    existing: ImportedDefinitions, catalog: CatalogFile, box: SecretBox | None, changes: CatalogChanges
) -> None:
    """The store section and the gateways: changed when a field differs, or a key the file names
    is not the one the store has (secrets: `changed`, never their values)."""
    store = existing.store
    if store is None:
        return
    profile = set(StoreProfile.model_fields)
    old = store.model_dump(mode="json", include=profile)
    new = catalog.store.model_dump(mode="json", include=profile)
    clauses = field_changes(old, new)
    given = catalog.store.checkout_api_key
    if given is not None and keys.hash_secret(given) != store.checkout_key_hash:
        clauses.append("checkout_api_key: changed")
    if catalog.store.public_token is not None and catalog.store.public_token != store.public_token:
        clauses.append(f"public_token: {store.public_token} → {catalog.store.public_token}")
    if clauses:
        changes.changed["store"] = [store.id]
        changes.details.append("~ store settings: " + "; ".join(clauses))
    stored = GatewaysSection.of(store.gateways, None)
    file = catalog.gateways
    clauses = field_changes(
        stored.model_dump(mode="json"),
        file.model_copy(
            update={"stripe": file.stripe.model_copy(update={"secret_key": None, "webhook_secret": None})}
            if file.stripe
            else {}
        ).model_dump(mode="json"),
    )
    if file.stripe and (file.stripe.secret_key or file.stripe.webhook_secret):
        try:
            opened = (
                GatewaysSection.of(store.gateways, partial(open_sealed, box)).stripe
                if box and store.gateways.stripe
                else None
            )
        except SealBroken:
            opened = None
        for name in ("secret_key", "webhook_secret"):
            value = getattr(file.stripe, name)
            if value is not None and (opened is None or getattr(opened, name) != value):
                clauses.append(f"stripe.{name}: changed")
    if clauses:
        changes.changed["gateways"] = [store.id]
        changes.details.append("~ payment gateways: " + "; ".join(clauses))


def _named(entity: Any) -> str:
    name = next(
        (getattr(entity, f) for f in ("name", "title", "code") if isinstance(getattr(entity, f, None), str)),
        None,
    )
    return f' "{name}"' if name else ""


def _differences(kind: str, old: Any, new: Any) -> str:
    """`: price: "4.99" → "9.99"` for two versions of one entity of the same model."""
    if not isinstance(old, Model) or type(old) is not type(new):
        return ""
    ignore = RUNTIME_FIELDS.get(kind, set())
    clauses = field_changes(old.model_dump(mode="json"), new.model_dump(mode="json"), ignore=ignore)
    return ": " + "; ".join(clauses) if clauses else ""


def _opened(item: Item, box: SecretBox | None) -> WebhookEndpoint | None:
    """A stored endpoint with its secret opened; None when it cannot be (then it counts as changed)."""
    if box is None:
        return None
    try:
        return AccountRepository.webhook_endpoint(item, partial(open_sealed, box))
    except SealBroken:
        return None


def _webhook_box(
    catalog: CatalogFile, existing: ImportedDefinitions, box: SecretBox | None
) -> SecretBox | None:
    """The box sealing webhook secrets, asked for its key only when webhooks are involved."""
    if not (catalog.webhooks or existing.webhooks):
        return box
    return box or secret_box(get_settings())


def preview_import(
    table: Table, catalog: CatalogFile, box: SecretBox | None = None, *, force: bool = False
) -> CatalogChanges:
    """What `import_catalog` would change, writing nothing (`webstore import --dry-run`)."""
    existing = DefinitionRepository(table).imported(catalog.store.id)
    return plan_changes(existing, catalog, _webhook_box(catalog, existing, box), force=force)


def import_catalog(
    table: Table,
    catalog: CatalogFile,
    now: datetime | None = None,
    box: SecretBox | None = None,
    pinned_webhooks: Collection[int] = (),
    actor: str = IMPORT_ACTOR,
    action: str = IMPORT_ACTION,
    revision: int | None = None,
    subject: str | None = None,
    force: bool = False,
) -> ImportResult:
    """Make the store equal to the file: write its definitions, and disable (packages, goals) or
    remove (categories, pages, coupons the file brought, servers, webhook endpoints) what the
    file no longer has; payments, players and history are not touched. Webhook signing secrets
    and Stripe keys are sealed with `box` (default: the box the settings name; asked for its key
    only when there are some). `pinned_webhooks`: ids of the file's endpoints that a later import of a
    file without them keeps (`webstore serve --webhook` adds them, no file has them). Every
    import leaves an audit log entry: `actor` did `action` (to `subject`), with the change
    summary. `revision`: the catalog revision the file was read or exported at (default: the
    file's own `revision`); when the store has moved past it and the import would change
    anything, StaleCatalog (nothing written) unless `force`. Entities made outside the file are
    removed only with `force`; the file's coupons are the import's from now on (a later file
    without them removes them; coupons made elsewhere stay, even with `force`)."""
    now = now or datetime.now(UTC)
    settings = catalog.store
    account_id = settings.id
    accounts = AccountRepository(table)
    definitions = DefinitionRepository(table)

    imported = definitions.imported(account_id)
    existing = imported.store
    if catalog.shop_translations is not None:  # checked before anything is written
        translations.check_all(table, account_id, catalog.shop_translations)
    box = _webhook_box(catalog, imported, box)
    changes = plan_changes(imported, catalog, box, force=force)
    base = revision if revision is not None else catalog.revision
    current = definitions.revision(account_id)
    stale = base is not None and base < current
    if stale and not force and not changes.empty:
        assert base is not None
        raise StaleCatalog(changes, base, current)
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
    # Stripe secrets sealed (the box's key: only then); those the file leaves out are kept.
    kept_stripe = existing.gateways.stripe if existing else None
    try:
        gateways = catalog.gateways.sealed(partial(seal, box), kept_stripe)
    except ValueError as missing:
        raise SecretMissing(f"gateways.stripe.{missing}") from None
    store = Store(
        **fields,
        sales=catalog.sales,
        created_at=existing.created_at if existing else now,
        public_token=public_token,
        checkout_key_hash=checkout_hash,
        gateways=gateways,
        steam_api_key_sealed=existing.steam_api_key_sealed if existing else None,
        shop_brand=existing.shop_brand if existing else ShopBrand(),
    )
    # The shop's theme the file names, checked against the file's own data before any write.
    shop_plan = _shop_plan(table, catalog, store, actor, now)
    if shop_plan is not None:
        changes.changed["shop"] = [account_id]
        changes.details.append(
            f"~ shop look and templates: {shop_plan.summary.removeprefix('catalog import: ')}"
        )
        if stale and not force:
            assert base is not None
            raise StaleCatalog(changes, base, current)
    # Every entity the file changes, planned as the panel's edits plan one, written the same way.
    edits = CatalogEdits(table)
    plans = _entity_plans(edits, imported, catalog, changes, store, existing)
    items = [accounts.creator_code_item(account_id, code) for code in catalog.creator_codes]
    plans += _webhook_plans(table, catalog, changes, box)
    server_plans, secrets = _server_plans(imported, catalog, changes)
    plans += server_plans
    # The first transaction claims the revision read above: a writer since stops the import
    # before anything changed. The same catalog keeps its revision (an export's bytes stay).
    claim = None if changes.empty and existing is not None else current
    write_changes(edits, account_id, plans, claim=claim, box=box)
    new_revision = current if claim is None else current + 1
    definitions.overwrite(items)
    if shop_plan is not None:
        from webstore.shop.theme import write_catalog_theme

        write_catalog_theme(table, account_id, shop_plan, actor=actor, now=now)

    still_there = set(imported.webhooks) | {w.id for w in catalog.webhooks}
    pinned = (imported.pinned_webhooks & still_there - set(changes.removed.get("webhook", []))) | set(
        pinned_webhooks
    )
    in_file = {c.id for c in catalog.coupons}
    owned = in_file
    brought = {
        "package": [p.id for p in catalog.packages],
        "category": [c.id for c in catalog.categories],
        "page": [p.id for p in catalog.pages],
        "sale": [s.id for s in catalog.sales],
        "goal": [g.id for g in catalog.community_goals],
        "server": [s.id for s in catalog.servers],
        "webhook": [w.id for w in catalog.webhooks],
    }
    definitions.record_import(account_id, owned, pinned, brought)
    if catalog.coupons or changes.removed.get("coupon"):
        accounts.recount_coupons(account_id)
    for sequence, entries in (
        ("coupon", catalog.coupons),
        ("giftcard", catalog.gift_cards),
        ("webhook", catalog.webhooks),
        ("goal", catalog.community_goals),
        ("server", catalog.servers),  # the panel takes new server ids from it
        ("category", catalog.categories),
        ("package", catalog.packages),
        ("page", catalog.pages),
        ("sale", catalog.sales),
    ):
        if entries:
            accounts.raise_sequence(account_id, sequence, max(e.id for e in entries))
    said = changes.summary()
    if force:
        said = (
            f"forced over catalog revision {current} (the file's: {base}): {said}"
            if stale
            else f"forced (what the file does not have removed): {said}"
        )
    summary = f"{subject}: {said}" if subject else said
    AuditLog(table).record(account_id, actor, action, summary, now)
    if catalog.shop_translations is not None:
        translations.replace_all(table, account_id, catalog.shop_translations, actor=actor, now=now)
    return ImportResult(account_id, public_token, checkout_key, secrets, changes, new_revision)


def _shop_plan(
    table: Table, catalog: CatalogFile, store: Store, actor: str, now: datetime
) -> CatalogTheme | None:
    """What the file's `shop` section changes of the shop's live theme (None: nothing, or no
    section). Its templates render every page of the shop with the file's own store data first."""
    if catalog.shop is None:
        return None
    from webstore.repo.store import StoreView
    from webstore.shop.theme import catalog_theme

    view = StoreView(
        store=store,
        pages=catalog.pages,
        goals=catalog.community_goals,
        categories=catalog.categories,
        packages=catalog.packages,
    )
    return catalog_theme(table, view, catalog.shop, actor=actor, now=now)


def _webhook_plans(
    table: Table,
    catalog: CatalogFile,
    changes: CatalogChanges,
    box: SecretBox | None,
) -> list[EntityChange]:
    """The file's webhook endpoints added or changed, and those it dropped, as the panel's
    changes of one endpoint. Re-importing an endpoint unchanged (same id, URL and secret) keeps
    it validated; a new URL or secret must pass the handshake again. An entry without a secret
    keeps the stored one."""
    stored = (
        {e.id: e for e in WebhookRepository(table, box).endpoints(catalog.store.id, consistent=True)}
        if catalog.webhooks and box
        else {}
    )
    plans = []
    for n, hook in enumerate(catalog.webhooks):
        kept = stored.get(hook.id)
        signing_secret = hook.secret or (kept.secret if kept else None)
        if signing_secret is None:
            raise SecretMissing(
                f"webhooks[{n}] (id {hook.id}).secret: required for an endpoint the store does not "
                "have yet (`webstore export` leaves secrets out unless --with-secrets)"
            )
        endpoint = hook.endpoint(signing_secret)
        if kept and kept.validated and (str(kept.url), kept.secret) == (str(hook.url), signing_secret):
            endpoint = endpoint.model_copy(update={"validated": True})
        if kept is None:
            plans.append(EntityChange("webhook", hook.id, "create", endpoint))
        elif kept != endpoint:
            plans.append(EntityChange("webhook", hook.id, "update", endpoint, kept))
    plans += [EntityChange("webhook", i, "delete") for i in changes.removed.get("webhook", [])]
    return plans


def _server_plans(
    imported: ImportedDefinitions, catalog: CatalogFile, changes: CatalogChanges
) -> tuple[list[EntityChange], dict[int, str | None]]:
    """The file's servers added or changed, and those it dropped (with their secrets), as the
    panel's changes of one server; and each file server's secret as issued (None: the stored
    one kept). An existing server keeps its secret unless the file gives one."""
    plans, secrets = [], {}
    for entry in catalog.servers:
        previous = imported.servers.get(entry.id)
        secret = entry.secret or (None if previous and previous.secret_hash else keys.new_secret())
        secret_hash = keys.hash_secret(secret) if secret else previous.secret_hash  # type: ignore[union-attr]
        server = Server(id=entry.id, name=entry.name, next_check=entry.next_check, secret_hash=secret_hash)
        if previous is None:
            plans.append(EntityChange("server", entry.id, "create", server))
        elif previous != server:
            plans.append(EntityChange("server", entry.id, "update", server, previous))
        secrets[entry.id] = secret
    for server_id in changes.removed.get("server", []):
        plans.append(EntityChange("server", server_id, "delete", old=imported.servers[server_id]))
    return plans, secrets


# The catalog file's section and the stored entities of each kind planned entity by entity.
PLANNED = (
    ("category", "categories", "categories"),
    ("package", "packages", "packages"),
    ("page", "pages", "pages"),
    ("goal", "community_goals", "goals"),
    ("coupon", "coupons", "coupons"),
)


def _entity_plans(
    edits: CatalogEdits,
    imported: ImportedDefinitions,
    catalog: CatalogFile,
    changes: CatalogChanges,
    store: Store,
    existing: Store | None,
) -> list[EntityChange]:
    """The file's changes as the per-entity changes the panel's edits make: the store item, then
    each category, package, page, goal and coupon added, changed or taken out, then the gift
    cards whose definition differs (their balances are the players')."""
    plans = [EntityChange("store", store.id, "update" if existing else "create", store, existing)]
    for kind, section, attribute in PLANNED:
        in_file = {e.id: e for e in getattr(catalog, section)}
        stored: dict[int, Any] = getattr(imported, attribute)
        for verb, ids in (
            ("create", changes.added),
            ("update", changes.changed),
            ("delete", changes.removed),
        ):
            for element_id in ids.get(kind, []):
                entity = None if verb == "delete" else in_file[element_id]
                plans.append(EntityChange(kind, element_id, verb, entity, stored.get(element_id)))
    if catalog.gift_cards:
        cards = edits.gift_cards(store.id)
        by_id, by_number = {c.id: c for c in cards}, {c.card_number: c for c in cards}
        for card in catalog.gift_cards:
            old = by_id.get(card.id) or by_number.get(card.card_number)
            if old is None:
                plans.append(EntityChange("gift_card", card.id, "create", card))
            elif old.model_dump(exclude=CARD_RUNTIME) != card.model_dump(exclude=CARD_RUNTIME):
                plans.append(EntityChange("gift_card", card.id, "update", card, old))
    return plans


# A gift card's fields players and payments move (and its creation time): not the file's to change.
CARD_RUNTIME = {"balance", "starting_balance", "created_at"}
