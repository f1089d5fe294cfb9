"""Changing one catalog element: the one use case the panel, the operator interface and the
catalog import's rules share.

One edit (create, update or delete one category, package, page, coupon, gift card, sale,
community goal or sidebar module; the store settings; the gateways) is:

1. one read of the catalog as it stands (the store partition, the servers, the coupons or gift
   cards when the element is one, the revision and the id sequences, issued together);
2. the edit applied to that catalog as a catalog file document and the result checked by
   `check_catalog`, so a mistake reads exactly as `webstore import` prints it;
3. the element before and after compared: nothing differs → "no changes", nothing written, no
   id taken; else one transaction writes the element's items, claims the catalog revision,
   takes a new element's id from its sequence and adds the audit entry (`field: old → new`),
   and the domain events the caller asked for (`events`: a new gift card's delivery e-mail).

The revision claimed is the one the client read (a panel form's `revision` field): a change
made since refuses the edit ("changed by someone else, reload"). A writer with no revision of
its own (`revision=None`: the operator interface) claims the revision it read in step 1 and,
when another writer moved it first, starts again from step 1 — so it never overwrites a change
it did not see, and a panel form read before it is refused in turn.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import partial
from typing import Any

from webstore.catalog_changes import EntityChange, write_change
from webstore.catalog_diff import field_changes, summary
from webstore.catalog_export import catalog_document, catalog_of
from webstore.catalog_file import CatalogError, check_catalog
from webstore.catalog_import import CatalogFile
from webstore.errors import Conflict, Invalid, NotFound
from webstore.events import DomainEvent
from webstore.repo.catalog_edits import CatalogEdits, CatalogState, Contention
from webstore.repo.catalog_revision import stale_revision
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.outbox import OutboxRepository
from webstore.sealing import seal
from webstore.services import Services

# Shown before a problem's path by check_catalog; the panel shows the path alone.
SOURCE = "catalog"
# An edit with no revision of its own reads again this many times when others keep moving it.
MAX_ATTEMPTS = 8


@dataclass(frozen=True)
class Kind:
    """One kind of catalog element: its section of the file, and what the audit log and
    messages call it."""

    name: str  # audit action `catalog.<name>.<verb>`
    section: str  # the catalog file's list
    label: str  # "package 12 "VIP""
    sequence: str  # the account's id sequence new ones take their ids from
    removable: bool = True


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("category", "categories", "category", "category"),
        Kind("package", "packages", "package", "package"),
        Kind("page", "pages", "page", "page"),
        Kind("coupon", "coupons", "coupon", "coupon"),
        # Players own gift card balances: a card is voided (`void`), never deleted.
        Kind("gift_card", "gift_cards", "gift card", "giftcard", removable=False),
        Kind("sale", "sales", "sale", "sale"),
        Kind("goal", "community_goals", "community goal", "goal"),
    )
}
# Times an edit keeps (created_at) or sets (updated_at): never "a change" of their own.
TIMES = ("created_at", "updated_at")
# Runtime state players and payments move: never part of an edit's comparison or writes.
RUNTIME = ("current", "times_achieved", "last_achieved", "balance", "starting_balance")
NAME_FIELDS = ("name", "title", "code", "card_number")
# What a store-level edit compares: the store section, or the whole file for the gateways.
STORE_SUBJECTS = {"store": "store settings", "sidebar": "sidebar", "gateways": "payment gateways"}


class CatalogInvalid(Invalid):
    """The edited catalog breaks a rule: the import's own lines (path, element, message)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Saved:
    element_id: int | None  # the element created or changed (None: store settings)
    changes: list[str]  # `field: old → new`; empty: no changes (nothing written)
    revision: int  # the catalog's revision after the edit
    state: CatalogState = field(repr=False)  # the catalog as the edit read it
    catalog: CatalogFile | None = field(default=None, repr=False)  # … and as it left it

    @property
    def unchanged(self) -> bool:
        return not self.changes


Apply = Callable[[dict[str, Any], CatalogState], tuple[int | None, str]]
# The domain events an edit writes in its own transaction (the outbox), from the element as it
# saves it (its id and the catalog checked): a new gift card's delivery, when it has a recipient.
Events = Callable[[int | None, CatalogFile], Sequence[DomainEvent]]


def catalog_revision(services: Services, account_id: int) -> int:
    """The revision a form carries (`revision` hidden field): read with the form's data."""
    return DefinitionRepository(services.table).revision(account_id)


def save_element(
    services: Services,
    account_id: int,
    kind_name: str,
    element_id: int | None,
    values: dict[str, Any],
    *,
    actor: str,
    revision: int | None,
    now: datetime,
    covers: Collection[str] | None = None,
    events: Events | None = None,
) -> Saved:
    """Create (`element_id` None: the kind's next id) or change one element to `values` (the
    element as a catalog file has it, without its id). `covers`: the fields the form shows;
    the element's other fields are kept (None: `values` is the whole element). `events`: what
    the change also writes to the outbox, in its transaction (nothing when nothing changed)."""
    kind = _kind(kind_name)

    def apply(document: dict[str, Any], state: CatalogState) -> tuple[int | None, str]:
        entries: list[dict[str, Any]] = document.setdefault(kind.section, [])
        stamped = {**values, **({"updated_at": now.isoformat()} if _has_updated_at(kind) else {})}
        if element_id is None:
            highest = max((int(e["id"]) for e in entries), default=0)
            new_id = state.ids.take(kind.sequence, above=highest)[0]
            entries.append({**stamped, "id": new_id, **_created(kind, now)})
            return new_id, "create"
        index = _index(entries, element_id, kind)
        current = entries[index]
        kept = {t: current[t] for t in ("created_at", *RUNTIME) if t in current}
        if covers is not None:
            kept |= {k: v for k, v in current.items() if k not in covers and k != "updated_at"}
        entries[index] = {**stamped, **kept, "id": element_id}
        return element_id, "update"

    return _edit(
        services, account_id, kind.name, apply, actor=actor, revision=revision, now=now, events=events
    )


def delete_element(
    services: Services,
    account_id: int,
    kind_name: str,
    element_id: int,
    *,
    actor: str,
    revision: int | None,
    now: datetime,
) -> Saved:
    """Take one element out of the catalog: as when a file drops it (packages and goals are
    disabled, the rest removed; docs/catalog.md)."""
    kind = _kind(kind_name)
    if not kind.removable:
        raise Invalid(
            f"a {kind.label} is not deleted (players own its balance): void it instead", field="void"
        )

    def apply(document: dict[str, Any], state: CatalogState) -> tuple[int | None, str]:
        entries: list[dict[str, Any]] = document.get(kind.section, [])
        del entries[_index(entries, element_id, kind)]
        return element_id, "delete"

    return _edit(services, account_id, kind.name, apply, actor=actor, revision=revision, now=now)


def save_store_settings(
    services: Services,
    account_id: int,
    values: dict[str, Any],
    *,
    actor: str,
    revision: int | None,
    now: datetime,
    covers: Collection[str] | None = None,
) -> Saved:
    """The store section (name, logo, colours, currency, tax, return hosts, basket lifetime, …)
    replaced by `values`; its id, public token and sidebar are kept (the sidebar has its own
    edits), and with `covers` every field the form does not show."""

    def apply(document: dict[str, Any], state: CatalogState) -> tuple[int | None, str]:
        store = document["store"]
        always = {"id", "public_token", "sidebar"}
        kept = {k: v for k, v in store.items() if k in always or (covers is not None and k not in covers)}
        document["store"] = {**values, **kept}
        return None, "update"

    return _edit(services, account_id, "store", apply, actor=actor, revision=revision, now=now)


def save_sidebar_module(
    services: Services,
    account_id: int,
    position: int | None,
    values: dict[str, Any] | None,
    *,
    actor: str,
    revision: int | None,
    now: datetime,
) -> Saved:
    """One sidebar module by its position in the list: added (`position` None), replaced, or
    removed (`values` None)."""

    def apply(document: dict[str, Any], state: CatalogState) -> tuple[int | None, str]:
        modules: list[dict[str, Any]] = document["store"].setdefault("sidebar", [])
        if position is None:
            if values is None:
                raise Invalid("nothing to add", field="type")
            modules.append(values)
            return len(modules) - 1, "create"
        if not 0 <= position < len(modules):
            raise NotFound("Sidebar module not found")
        if values is None:
            del modules[position]
            return position, "delete"
        modules[position] = values
        return position, "update"

    return _edit(services, account_id, "sidebar", apply, actor=actor, revision=revision, now=now)


def save_gateways(
    services: Services,
    account_id: int,
    *,
    publishable_key: str,
    secret_key: str,
    webhook_secret: str,
    sandbox: bool | None,
    actor: str,
    revision: int | None,
    now: datetime,
) -> Saved:
    """The Stripe keys (a blank publishable key: no Stripe) and the sandbox switch. The secrets are
    write-only: a blank one keeps the store's."""

    def apply(document: dict[str, Any], state: CatalogState) -> tuple[int | None, str]:
        stripe: dict[str, Any] | None = None
        if publishable_key.strip():
            stripe = {"publishable_key": publishable_key.strip()}
            if secret_key.strip():
                stripe["secret_key"] = secret_key.strip()
            if webhook_secret.strip():
                stripe["webhook_secret"] = webhook_secret.strip()
        document["gateways"] = {"stripe": stripe, "sandbox": sandbox}
        return None, "update"

    return _edit(services, account_id, "gateways", apply, actor=actor, revision=revision, now=now)


# --- the edit ---------------------------------------------------------------------------------


class _Lost(Conflict):
    """An edit without a revision of its own lost the claim to another writer: read again."""


def _edit(
    services: Services,
    account_id: int,
    kind_name: str,
    apply: Apply,
    *,
    actor: str,
    revision: int | None,
    now: datetime,
    events: Events | None = None,
) -> Saved:
    edits = CatalogEdits(services.table)
    for _ in range(MAX_ATTEMPTS):
        # Coupons name packages and categories: read with them, so a reference is checked.
        state = edits.read(
            account_id,
            coupons=kind_name in ("coupon", "package", "category"),
            gift_cards=kind_name == "gift_card",
        )
        if revision is not None and state.revision != revision:
            raise stale_revision()  # a stale form: refused before any work
        try:
            return _apply_and_write(
                services, edits, state, account_id, kind_name, apply, actor, revision, now, events
            )
        except (_Lost, Contention):
            continue
    raise Conflict("The catalog is busy; nothing was saved, try again")


def _apply_and_write(
    services: Services,
    edits: CatalogEdits,
    state: CatalogState,
    account_id: int,
    kind_name: str,
    apply: Apply,
    actor: str,
    revision: int | None,
    now: datetime,
    events: Events | None,
) -> Saved:
    document = catalog_document(catalog_of(state.found, state.gift_cards))
    before_doc = copy.deepcopy(document)
    element_id, verb = apply(document, state)
    try:
        catalog = check_catalog(document, source=SOURCE)
    except CatalogError as error:
        raise CatalogInvalid([p.removeprefix(f"{SOURCE}: ") for p in error.problems]) from None
    before = check_catalog(before_doc, source=SOURCE)
    old, new = _element(before, kind_name, element_id), _element(catalog, kind_name, element_id)
    ignore = (*TIMES, *RUNTIME)
    changes = field_changes(old, new, ignore=ignore)
    if verb == "create":
        changes = [
            "created",
            *field_changes(None, _defaults_left_out(catalog, kind_name, element_id), ignore=ignore),
        ]
    elif verb == "delete":
        changes = ["disabled" if kind_name in ("package", "goal") else "removed"]
    if not changes:
        return Saved(element_id, [], state.revision, state, catalog)
    tx = edits.transaction()
    if revision is not None:
        edits.claim(tx, account_id, revision)
    else:
        edits.claim(tx, account_id, state.revision, fails=_Lost("catalog moved on"))
    change = _plan(services, state, catalog, kind_name, element_id, verb)
    write_change(edits, tx, account_id, change, state.ids)
    if events is not None:
        OutboxRepository.add_all(tx, list(events(element_id, catalog)))
    subject = _describe(kind_name, element_id, document if verb != "delete" else before_doc)
    edits.audit(tx, account_id, actor, f"catalog.{kind_name}.{verb}", summary(subject, changes), now)
    edits.commit(tx, state.ids)
    return Saved(element_id, changes, state.revision + 1, state, catalog)


def _plan(
    services: Services,
    state: CatalogState,
    catalog: CatalogFile,
    kind_name: str,
    element_id: int | None,
    verb: str,
) -> EntityChange:
    """The edit as one entity's change (`webstore.catalog_changes`): what the import plans too."""
    found = state.found
    if kind_name in ("category", "package", "page", "goal", "coupon", "gift_card"):
        section = "community_goals" if kind_name == "goal" else KINDS[kind_name].section
        entity = next((e for e in getattr(catalog, section) if e.id == element_id), None)
        old: Any = None
        if kind_name == "coupon":
            old = found.coupons.get(element_id or 0)
        elif kind_name == "gift_card":
            old = next((c for c in state.gift_cards if c.id == element_id), None)
        return EntityChange(kind_name, element_id, verb, None if verb == "delete" else entity, old)
    # sale, store settings, sidebar, gateways: the store item
    store = found.store
    assert store is not None
    fields = catalog.store.model_dump(exclude={"public_token", "checkout_api_key"})
    update: dict[str, Any] = {**fields, "sales": catalog.sales}
    if kind_name == "gateways":
        try:
            sealer = partial(seal, services.secrets)
            update["gateways"] = catalog.gateways.sealed(sealer, store.gateways.stripe)
        except ValueError as missing:
            raise Invalid(f"gateways.stripe.{missing}", field=str(missing).split(":", 1)[0]) from None
    return EntityChange("store", None, "update", store.model_copy(update=update), store)


def _element(catalog: CatalogFile, kind_name: str, element_id: int | None) -> dict[str, Any] | None:
    """The element as a full JSON document (defaults written out: what a comparison needs)."""
    if kind_name in STORE_SUBJECTS:
        whole = catalog.model_dump(mode="json", include={"store", "gateways"})
        if kind_name == "sidebar":
            return {"sidebar": whole["store"].get("sidebar", [])}
        if kind_name == "gateways":
            return {"gateways": whole["gateways"]}
        return {k: v for k, v in whole["store"].items() if k != "sidebar"}
    section = KINDS[kind_name].section
    for entity in getattr(catalog, section):
        if entity.id == element_id:
            return dict(entity.model_dump(mode="json", exclude={"id"}))
    return None


def _defaults_left_out(catalog: CatalogFile, kind_name: str, element_id: int | None) -> dict[str, Any] | None:
    """A new element's fields that are not the defaults (what an audit entry lists for it)."""
    if kind_name in STORE_SUBJECTS:
        return None
    for entity in getattr(catalog, KINDS[kind_name].section):
        if entity.id == element_id:
            return dict(entity.model_dump(mode="json", exclude={"id"}, exclude_defaults=True))
    return None


def _describe(kind_name: str, element_id: int | None, document: dict[str, Any]) -> str:
    """`package 31 "Emerald"`, `store settings`: what the audit entry names before the changes."""
    kind = KINDS.get(kind_name)
    if kind is None:
        return STORE_SUBJECTS[kind_name]
    entries: list[dict[str, Any]] = document.get(kind.section, [])
    entry: dict[str, Any] = next((e for e in entries if e.get("id") == element_id), {})
    name = next((entry[f] for f in NAME_FIELDS if isinstance(entry.get(f), str)), None)
    return f"{kind.label} {element_id}" + (f' "{name}"' if name else "")


def _kind(name: str) -> Kind:
    try:
        return KINDS[name]
    except KeyError:
        raise NotFound(f"No catalog section {name!r}") from None


def _index(entries: list[dict[str, Any]], element_id: int, kind: Kind) -> int:
    for index, entry in enumerate(entries):
        if entry.get("id") == element_id:
            return index
    raise NotFound(f"{kind.label.capitalize()} {element_id} not found")


def _has_updated_at(kind: Kind) -> bool:
    return kind.section in ("packages", "pages", "community_goals")


def _created(kind: Kind, now: datetime) -> dict[str, str]:
    return {"created_at": now.isoformat()} if kind.section not in ("categories", "sales") else {}
