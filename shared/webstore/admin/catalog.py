"""Catalog edits from the panel: the same validation and the same use case as the catalog file.

One edit (create, update or delete one category, package, page, coupon, gift card, sale,
community goal or sidebar module; the store settings; the gateways) is: the store exported as
a catalog file (webstore.catalog_export), the edit applied to that document, the document
checked by `check_catalog` (so a mistake reads exactly as `webstore import` prints it, naming the
element's path and name), and the result imported (webstore.catalog_import) with the staff
member as the audit log's actor. There is no second way to change a package.

Two staff editing at once: a form carries the catalog revision it was read at, and the import
claims it before its first write; the second to save is told to reload (nothing written).
Secrets are write-only: an export leaves them out and a blank secret field is left out of the
edit, so the import keeps the sealed value the store has.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webstore.catalog_export import catalog_document, export_catalog
from webstore.catalog_file import CatalogError, check_catalog
from webstore.catalog_import import CatalogChanges, SecretMissing, import_catalog
from webstore.errors import Invalid, NotFound
from webstore.repo.account import AccountRepository
from webstore.repo.definitions import DefinitionRepository
from webstore.services import Services

# Shown before a problem's path by check_catalog; the panel shows the path alone.
SOURCE = "catalog"


@dataclass(frozen=True)
class Kind:
    """One kind of catalog element as the panel edits it: its section of the file, and what the
    audit log and messages call it."""

    name: str  # audit action `catalog.<name>.<verb>`
    section: str  # the catalog file's list
    label: str  # "package 12 "VIP""
    removable: bool = True
    # The account's id sequence of the kind, where the operator interface creates them too: a new
    # one takes its id from it, so the two never pick the same id.
    sequence: str | None = None


KINDS: dict[str, Kind] = {
    k.name: k
    for k in (
        Kind("category", "categories", "category"),
        Kind("package", "packages", "package"),
        Kind("page", "pages", "page"),
        Kind("coupon", "coupons", "coupon", sequence="coupon"),
        # Players own gift card balances: a card is voided (`void`), never deleted.
        Kind("gift_card", "gift_cards", "gift card", removable=False, sequence="giftcard"),
        Kind("sale", "sales", "sale"),
        Kind("goal", "community_goals", "community goal", sequence="goal"),
    )
}
# Times an import fills in; an edit keeps the element's and sets `updated_at`.
KEPT_TIMES = ("created_at",)
NAME_FIELDS = ("name", "title", "code", "card_number")


class CatalogInvalid(Invalid):
    """The edited catalog breaks a rule: the import's own lines (path, element, message)."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Saved:
    element_id: int | None  # the id of the element created or changed (None: store settings)
    changes: CatalogChanges
    revision: int


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
    revision: int,
    now: datetime,
    covers: Collection[str] | None = None,
) -> Saved:
    """Create (`element_id` None: the next free id) or replace one element with `values` (the
    element as a catalog file has it, without its id). `covers`: the fields the form shows; the
    element's other fields are kept (None: `values` is the whole element)."""
    kind = _kind(kind_name)
    reserved = 0
    if element_id is None and kind.sequence:
        reserved = AccountRepository(services.table).next_ids(account_id, kind.sequence)[0]

    def apply(document: dict[str, Any]) -> tuple[int, str]:
        entries: list[dict[str, Any]] = document.setdefault(kind.section, [])
        stamped = {**values, **({"updated_at": now.isoformat()} if _has_updated_at(kind) else {})}
        if element_id is None:
            new_id = max(max((int(e["id"]) for e in entries), default=0) + 1, reserved)
            entries.append({**stamped, "id": new_id, **_created(kind, now)})
            return new_id, "create"
        index = _index(entries, element_id, kind)
        current = entries[index]
        kept = {t: current[t] for t in KEPT_TIMES if t in current}
        if covers is not None:
            kept |= {k: v for k, v in current.items() if k not in covers and k != "updated_at"}
        entries[index] = {**stamped, **kept, "id": element_id}
        return element_id, "update"

    return _edit(services, account_id, kind.name, apply, actor=actor, revision=revision, now=now)


def delete_element(
    services: Services,
    account_id: int,
    kind_name: str,
    element_id: int,
    *,
    actor: str,
    revision: int,
    now: datetime,
) -> Saved:
    """Take one element out of the catalog: as when a file drops it (packages and goals are
    disabled, the rest removed; docs/catalog.md)."""
    kind = _kind(kind_name)
    if not kind.removable:
        raise Invalid(
            f"a {kind.label} is not deleted (players own its balance): void it instead", field="void"
        )

    def apply(document: dict[str, Any]) -> tuple[int, str]:
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
    revision: int,
    now: datetime,
    covers: Collection[str] | None = None,
) -> Saved:
    """The store section (name, logo, colours, currency, tax, return hosts, basket lifetime, …)
    replaced by `values`; its id, public token and sidebar are kept (the sidebar has its own
    edits), and with `covers` every field the form does not show."""

    def apply(document: dict[str, Any]) -> tuple[int | None, str]:
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
    revision: int,
    now: datetime,
) -> Saved:
    """One sidebar module by its position in the list: added (`position` None), replaced, or
    removed (`values` None)."""

    def apply(document: dict[str, Any]) -> tuple[int | None, str]:
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
    revision: int,
    now: datetime,
) -> Saved:
    """The Stripe keys (a blank publishable key: no Stripe) and the sandbox switch. The secrets are
    write-only: a blank one keeps the store's (the import keeps what the file leaves out)."""

    def apply(document: dict[str, Any]) -> tuple[int | None, str]:
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


def _edit(
    services: Services,
    account_id: int,
    kind_name: str,
    apply: Callable[[dict[str, Any]], tuple[int | None, str]],
    *,
    actor: str,
    revision: int,
    now: datetime,
) -> Saved:
    table = services.table
    DefinitionRepository(table).check_revision(account_id, revision)  # a stale form: refused at once
    document = catalog_document(export_catalog(table, account_id))  # secrets left out: kept
    before = copy.deepcopy(document)
    element_id, verb = apply(document)
    try:
        catalog = check_catalog(document, source=SOURCE)
    except CatalogError as error:
        raise CatalogInvalid([p.removeprefix(f"{SOURCE}: ") for p in error.problems]) from None
    what = _describe(kind_name, element_id, document if verb != "delete" else before)
    try:
        result = import_catalog(
            table,
            catalog,
            now=now,
            box=services.secrets,
            actor=actor,
            action=f"catalog.{kind_name}.{verb}",
            revision=revision,
            subject=what,
            # Coupons made with the operator interface stay its own, but for the one edited here.
            coupons_owned={element_id} if kind_name == "coupon" and element_id is not None else set(),
        )
    except SecretMissing as missing:
        raise Invalid(str(missing), field=str(missing).split(":", 1)[0].rsplit(".", 1)[-1]) from None
    return Saved(element_id, result.changes, revision + 1)


def _describe(kind_name: str, element_id: int | None, document: dict[str, Any]) -> str:
    """`package 31 "Emerald"`, `store settings`: what the audit entry names before the summary."""
    kind = KINDS.get(kind_name)
    if kind is None:
        return {"store": "store settings", "sidebar": "sidebar", "gateways": "payment gateways"}[kind_name]
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
