"""The store's settings page (`/settings`): the store section and its sidebar modules, read
with the catalog revision (one round trip), and their forms; the payment gateways (Stripe keys,
the sandbox switch) are set on the Go live page (webstore.admin.golive_pages), which this page
links to; a Steam store's Steam Web API key (write-only, sealed). Each catalog save is one
call into the catalog claiming the revision; a refused one shows the page again with that form
as typed (webstore.admin.flow).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from webstore.admin import catalog as edits
from webstore.admin.catalog_forms import covered, form_values, read_form, render_fields
from webstore.admin.catalog_pages import SECTIONS, revision_of
from webstore.admin.flow import PanelPage
from webstore.errors import DomainError, Invalid, NotFound
from webstore.html import Markup, fragment
from webstore.identity.steam import check_steam_api_key, is_steam_store
from webstore.repo import start_read
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.sealing import seal
from webstore.services import Services


@dataclass(frozen=True)
class SidebarForm:
    """One sidebar module's form on the settings page (`new`: the blank one to add a module)."""

    ref: str  # its position, or "new"
    fields: Markup
    new: bool


@dataclass(frozen=True)
class SettingsErrors:
    """Which form of the settings page was refused, with what was typed and the message."""

    form: str  # "store", "sidebar:<ref>"
    message: str
    typed: dict[str, str]


def settings_page(
    services: Services,
    account_id: int,
    *,
    csrf: Markup,
    may_write: Callable[[], bool],
    refused: SettingsErrors | None = None,
    status: int = 200,
) -> PanelPage:
    """The store section and its sidebar: the store item and the revision, read together (one
    round trip)."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    store = StoreRepository(services.table).store(account_id)
    revision = str(revision_read.result())
    can_write = may_write()  # asked once the page is read: the session is read beside it

    def typed_or(form: str, values: dict[str, str]) -> dict[str, str]:
        return refused.typed if refused is not None and refused.form == form else values

    store_values = typed_or("store", form_values(store.model_dump(mode="json", exclude={"sidebar"})))
    modules = []
    for n, module in enumerate([*store.sidebar, None]):
        ref = "new" if module is None else str(n)
        if module is None and not can_write:
            continue
        values = typed_or(f"sidebar:{ref}", form_values(module.model_dump(mode="json")) if module else {})
        fields = render_fields("sidebar", values, creating=module is None)
        modules.append(SidebarForm(ref, fields, module is None))
    body = fragment(
        "panel/settings/settings.html",
        sections=SECTIONS.values(),
        csrf=csrf,
        revision=revision,
        can_write=can_write,
        errors={refused.form: refused.message} if refused is not None else {},
        fields=render_fields("store", store_values, creating=False),
        modules=modules,
        steam=is_steam_store(store),
        steam_key_set=store.steam_api_key_sealed is not None,
    )
    return PanelPage("Store settings", body, "settings", status)


def save_store_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """The store section saved (one call into the catalog): back to the settings."""
    saved = edits.save_store_settings(
        services,
        account_id,
        read_form("store", form, creating=False),
        actor=actor,
        revision=revision_of(form),
        now=now,
        covers=covered("store"),
    )
    return settings_done(saved)


def save_sidebar_action(
    services: Services, account_id: int, ref: str, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """Add (`new`), replace or remove (`delete=1`) one sidebar module by its position."""
    if ref != "new" and not (ref.isascii() and ref.isdigit() and len(ref) <= 4):
        raise NotFound("No such sidebar module")
    position = None if ref == "new" else int(ref)
    values = None if form.get("delete") == "1" else read_form("sidebar", form, creating=position is None)
    saved = edits.save_sidebar_module(
        services, account_id, position, values, actor=actor, revision=revision_of(form), now=now
    )
    return settings_done(saved)


def save_steam_key_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """The Steam Web API key (a Steam store's): a typed key checked and sealed, `remove=1`
    takes it away, a blank field keeps it. Write-only: the page only says whether one is set."""
    store = StoreRepository(services.table).store(account_id)
    if not is_steam_store(store):
        raise Invalid("steam_api_key: only a store of a Steam game signs players in through Steam")
    typed = form.get("steam_api_key", "").strip()
    if form.get("remove") == "1":
        if store.steam_api_key_sealed is None:
            return "/settings?done=No+changes"
        sealed, said = None, "removed"
    elif not typed:
        return "/settings?done=No+changes"
    else:
        sealed = seal(services.secrets, check_steam_api_key(typed))
        said = "changed" if store.steam_api_key_sealed else "set"
    audit = (actor, "store.steam_api_key", f"store settings: steam_api_key: {said}", now)
    StoreRepository(services.table).set_steam_api_key(account_id, sealed, audit)
    return "/settings?done=Saved"


def settings_done(saved: object) -> str:
    """Back to the settings, saying whether the save changed anything."""
    unchanged = isinstance(saved, edits.Saved) and saved.unchanged
    return "/settings?done=" + ("No+changes" if unchanged else "Saved")


def settings_again(
    services: Services, account_id: int, which: str, form: dict[str, str], error: DomainError, *, csrf: Markup
) -> PanelPage:
    """The settings page with the refused form (`which`: store, sidebar:<ref>) as typed and why."""
    hidden = ("csrf", "revision", "delete", "steam_api_key")  # a typed secret is never shown again
    typed = {k: v for k, v in form.items() if k not in hidden}
    return settings_page(
        services,
        account_id,
        csrf=csrf,
        may_write=lambda: True,
        refused=SettingsErrors(which, error.detail, typed),
    )
