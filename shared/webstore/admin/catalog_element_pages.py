"""One catalog element's page (`/catalog/{section}/{id}`, `new` for an empty one): its form,
read with its choices and the catalog revision (one round trip), its save and its deletion.
A save is one call into the catalog (`webstore.admin.catalog.save_element`), claiming the
revision the form was read at; a refused save shows the form again as typed (webstore.admin.flow).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import quote

from webstore.admin import catalog as edits
from webstore.admin.catalog_forms import covered, form_values, read_form, render_fields
from webstore.admin.catalog_pages import SECTIONS, Section, element_ref, revision_of, section_of
from webstore.admin.flow import PanelPage
from webstore.catalog_import import CatalogFile
from webstore.errors import DomainError, NotFound
from webstore.events import DomainEvent
from webstore.html import Markup, fragment
from webstore.operator.gift_cards import delivery_event, delivery_recipient
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services


def element_page(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    *,
    csrf: Markup,
    may_write: Callable[[], bool],
) -> PanelPage:
    """A new element's form, or one element's: the element, the form's choices (categories,
    servers) and the catalog revision, read side by side (one round trip, the session's check
    beside them); `may_write` asked once they are read."""
    section = section_of(path)
    element_id = element_ref(ref)
    definitions = DefinitionRepository(services.table)
    choices = _choices_read(services, account_id, section.kind)
    values: dict[str, str] = {}
    if element_id is None and section.kind != "gift_card":  # nothing else to read on this thread
        revision = definitions.revision(account_id)
    else:
        revision_read = start_read(definitions.revision, account_id)
        if element_id is not None:
            values = form_values(_element(services, account_id, section.kind, element_id))
        else:
            values = {"currency": StoreRepository(services.table).store(account_id).currency}
        revision = revision_read.result()
    return _form_view(
        section,
        element_id,
        values,
        revision=revision,
        options=choices(),
        csrf=csrf,
        can_write=may_write(),
    )


def _element(services: Services, account_id: int, kind: str, element_id: int) -> dict[str, Any]:
    if kind == "sale":
        sales = StoreRepository(services.table).store(account_id).sales
        sale = next((s for s in sales if s.id == element_id), None)
        if sale is None:
            raise NotFound(f"Sale {element_id} not found")
        return sale.model_dump(mode="json", exclude={"id"})
    element = CatalogLists(services.table).element(account_id, kind, element_id)
    return dict(element.model_dump(mode="json", exclude={"id"}))


def _choices(services: Services, account_id: int, kind: str) -> dict[str, list[tuple[str, str]]]:
    """The dynamic selects: categories (a package's, a category's parent), servers (commands)."""
    return _choices_read(services, account_id, kind)()


def _choices_read(
    services: Services, account_id: int, kind: str
) -> Callable[[], dict[str, list[tuple[str, str]]]]:
    """`_choices`' reads issued now, side by side (`start_read`); the selects once collected."""
    if kind not in ("package", "category"):
        return dict
    categories_read = start_read(CatalogLists(services.table).categories, account_id)
    servers_read = (
        start_read(AccountRepository(services.table).servers, account_id) if kind == "package" else None
    )

    def collected() -> dict[str, list[tuple[str, str]]]:
        categories = [(str(c.id), f"{c.name} (#{c.id})") for c in categories_read.result()]
        if servers_read is None:
            return {"parent_id": categories}
        servers = servers_read.result()
        return {
            "category_id": categories,
            "server_id": [(str(s.id), f"{s.name} (#{s.id})") for s in servers.values()],
        }

    return collected


def _form_view(
    section: Section,
    element_id: int | None,
    values: dict[str, str],
    *,
    revision: int,
    options: dict[str, list[tuple[str, str]]],
    csrf: Markup,
    can_write: bool,
    error: str = "",
    status: int = 200,
) -> PanelPage:
    base = f"/catalog/{section.path}"
    ref = "new" if element_id is None else str(element_id)
    label = values.get("name") or values.get("title") or values.get("code") or values.get("card_number") or ""
    title = (
        f"New {section.singular}" if element_id is None else f"{section.singular.capitalize()} {element_id}"
    )
    deletable = (
        can_write
        and element_id is not None
        and section.kind in edits.KINDS
        and edits.KINDS[section.kind].removable
    )
    body = fragment(
        "panel/catalog/element.html",
        sections=SECTIONS.values(),
        section=section,
        title=title,
        label=label,
        base=base,
        element_id=element_id,
        action=f"{base}/{quote(ref)}",
        csrf=csrf,
        revision=revision,
        fields=render_fields(section.kind, values, creating=element_id is None, options=options),
        can_write=can_write,
        error=error,
        deletable=deletable,
    )
    return PanelPage(title, body, "catalog", status)


def save_action(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    form: dict[str, str],
    *,
    actor: str,
    now: datetime,
) -> str:
    """Save one element from its form (one call into the catalog): where its page is. Refused
    (422 a mistake, 409 changed meanwhile), nothing is written."""
    section = section_of(path)
    element_id = element_ref(ref)
    creating_card = section.kind == "gift_card" and element_id is None
    delivery = _delivery(account_id, form, now) if creating_card else None
    saved = edits.save_element(
        services,
        account_id,
        section.kind,
        element_id,
        read_form(section.kind, form, creating=element_id is None),
        actor=actor,
        revision=revision_of(form),
        now=now,
        covers=covered(section.kind),
        events=delivery,
    )
    done = "No+changes" if saved.unchanged else "Saved"
    return f"/catalog/{section.path}/{saved.element_id}?done={done}"


def _delivery(account_id: int, form: dict[str, str], now: datetime) -> edits.Events | None:
    """A new gift card's e-mail (the form's "Send it to" and "Message"): its delivery event,
    written with the card, as the operator interface's `POST /gift-cards` writes it. Checked
    before anything is saved (a bad address, or a message with no address, refuses the card)."""
    message = form.get("message", "").strip()
    recipient = delivery_recipient(form.get("email", ""), message)
    if recipient is None:
        return None

    def events(card_id: int | None, catalog: CatalogFile) -> list[DomainEvent]:
        card = next(c for c in catalog.gift_cards if c.id == card_id)
        return [delivery_event(account_id, card, recipient, message, now)]

    return events


def form_again(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    form: dict[str, str],
    error: DomainError,
    *,
    csrf: Markup,
) -> PanelPage:
    """The element's form again as it was typed, with why it was refused."""
    section = section_of(path)
    revision = form.get("revision", "")
    return _form_view(
        section,
        element_ref(ref),
        {k: v for k, v in form.items() if k not in ("csrf", "revision")},
        revision=int(revision) if revision.isascii() and revision.isdigit() else 0,
        options=_choices(services, account_id, section.kind),
        csrf=csrf,
        can_write=True,
        error=error.detail,
    )


def delete_action(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    form: dict[str, str],
    *,
    actor: str,
    now: datetime,
) -> str:
    section = section_of(path)
    element_id = element_ref(ref)
    if element_id is None:
        raise NotFound("No such catalog element")
    edits.delete_element(
        services, account_id, section.kind, element_id, actor=actor, revision=revision_of(form), now=now
    )
    return f"/catalog/{section.path}?done=Deleted"


def not_deleted(path: str, ref: str, error: DomainError) -> PanelPage:
    """A refused deletion: why, and the way back to the element."""
    section = section_of(path)
    back = f"/catalog/{section.path}/{element_ref(ref)}"
    body = fragment(
        "panel/catalog/not_deleted.html",
        sections=SECTIONS.values(),
        section=section,
        message=error.detail,
        back=back,
    )
    return PanelPage("Not deleted", body, "catalog")
