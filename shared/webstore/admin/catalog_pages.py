"""The panel's catalog pages (`/catalog/{section}`, `/catalog/{section}/{id}`, `/store-settings`,
`/audit`): what each reads (one to three round trips whatever the store's size: lists paged in
the database, the form's choices read beside the element) and the page body it renders.
HTTP-free: a handler wraps the body in the panel's layout. Every value is escaped (`fill`).

A save is `webstore.admin.catalog` (the catalog file's validation and import); a refused save
renders the form again with what was typed and the import's message beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from string import Template
from typing import Any
from urllib.parse import quote, urlencode

from webstore.admin import catalog as edits
from webstore.admin.catalog_forms import covered, form_values, read_form, render_fields
from webstore.catalog import Category, Sale
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.pages import Safe, escape, fill

PER_PAGE = 50


@dataclass(frozen=True)
class Section:
    path: str  # /catalog/<path>
    kind: str  # webstore.admin.catalog KINDS
    title: str
    singular: str


SECTIONS: dict[str, Section] = {
    s.path: s
    for s in (
        Section("categories", "category", "Categories", "category"),
        Section("packages", "package", "Packages", "package"),
        Section("pages", "page", "Pages", "page"),
        Section("coupons", "coupon", "Coupons", "coupon"),
        Section("gift-cards", "gift_card", "Gift cards", "gift card"),
        Section("sales", "sale", "Sales", "sale"),
        Section("goals", "goal", "Community goals", "community goal"),
    )
}


@dataclass(frozen=True)
class PanelView:
    """A page body for the panel's layout, or where to go (Post/Redirect/Get)."""

    title: str = ""
    body: str = ""  # a Safe fragment
    status: int = 200
    redirect: str | None = None


def section_of(path: str) -> Section:
    try:
        return SECTIONS[path]
    except KeyError:
        raise NotFound("No such catalog section") from None


def element_ref(ref: str) -> int | None:
    """`new` (None) or an id; anything else is not a page."""
    if ref == "new":
        return None
    if ref.isascii() and ref.isdigit() and 1 <= int(ref) <= 2_147_483_647:
        return int(ref)
    raise NotFound("No such catalog element")


def _cursor(after: str | None) -> int | None:
    if after in (None, ""):
        return None
    assert after is not None
    if not (after.isascii() and after.isdigit() and int(after) <= 2_147_483_647):
        raise Invalid("after is not a position in this list", field="after")
    return int(after)


# --- lists ------------------------------------------------------------------------------------

_SUBNAV = Template('<nav class="subnav" aria-label="Catalog">$links</nav>')


def subnav(current: str) -> Safe:
    links = [
        Safe(f'<a href="/catalog/{s.path}"{_current(s.path == current)}>{escape(s.title)}</a>')
        for s in SECTIONS.values()
    ]
    links.append(Safe(f'<a href="/store-settings"{_current(current == "settings")}>Store settings</a>'))
    return fill(_SUBNAV, links=Safe(" ".join(links)))


def _current(yes: bool) -> str:
    return ' aria-current="page"' if yes else ""


def list_page(
    services: Services, account_id: int, path: str, after: str | None, *, can_write: bool, done: str = ""
) -> PanelView:
    """One page of a section (the categories: their whole tree)."""
    section = section_of(path)
    lists = CatalogLists(services.table)
    cursor = _cursor(after)
    next_after: int | None = None
    if section.kind == "category":
        body = _category_tree(lists.categories(account_id))
    elif section.kind == "sale":
        sales = StoreRepository(services.table).store(account_id).sales
        body = _table(section, ["Name", "Discount", "From", "Until"], [(s.id, _sale_row(s)) for s in sales])
    else:
        page = lists.page(account_id, section.kind, cursor, PER_PAGE)
        next_after = page.next_after
        body = _table(section, *_columns(section.kind, page.elements))
    new = (
        Safe(
            f'<p><a class="button" href="/catalog/{section.path}/new">New {escape(section.singular)}</a></p>'
        )
        if can_write
        else Safe("")
    )
    more = (
        Safe(
            f'<p><a rel="next" href="/catalog/{section.path}?{urlencode({"after": next_after})}">'
            "Next page</a></p>"
        )
        if next_after is not None
        else Safe("")
    )
    return PanelView(section.title, Safe(subnav(section.path) + _done(done) + new + body + more))


def _done(done: str) -> Safe:
    messages = {"saved": "Saved.", "deleted": "Deleted."}
    return Safe(f'<p class="notice" role="status">{messages[done]}</p>') if done in messages else Safe("")


def _category_tree(categories: list[Category]) -> Safe:
    children: dict[int | None, list[Category]] = {}
    for category in sorted(categories, key=lambda c: (c.order, c.id)):
        parent = category.parent_id if any(c.id == category.parent_id for c in categories) else None
        children.setdefault(parent, []).append(category)

    def branch(parent: int | None, depth: int) -> str:
        if parent not in children or depth > 20:
            return ""
        items = []
        for c in children[parent]:
            flags = " ".join(f for f, on in (("tiered", c.tiered), ("dynamic", c.dynamic)) if on)
            badge = f' <span class="badge">{escape(flags)}</span>' if flags else ""
            items.append(
                f'<li><a href="/catalog/categories/{c.id}">{escape(c.name)}</a> '
                f"<small>#{c.id} · order {c.order}</small>{badge}{branch(c.id, depth + 1)}</li>"
            )
        return f'<ul class="tree">{"".join(items)}</ul>'

    return Safe(branch(None, 0) or "<p>No categories yet.</p>")


def _columns(kind: str, elements: list[Any]) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if kind == "package":
        return ["Name", "Category", "Price", "Type", "Commands", "State"], [
            (
                p.id,
                [
                    p.name,
                    str(p.category_id),
                    str(p.price),
                    p.type.value + (f" / {p.expiry_length} {p.expiry_period}" if p.expiry_length else ""),
                    str(len(p.commands)),
                    "disabled" if p.disabled else "on sale",
                ],
            )
            for p in elements
        ]
    if kind == "page":
        return ["Title", "Slug", "State"], [
            (p.id, [p.title, p.slug, "disabled" if p.disabled else ("hidden" if p.hidden else "shown")])
            for p in elements
        ]
    if kind == "coupon":
        return ["Code", "Discount", "Expires"], [
            (c.id, [c.code, _discount(c.discount), "never" if c.expire_never else _when(c.expire_date)])
            for c in elements
        ]
    if kind == "gift_card":
        return ["Card number", "Balance", "State"], [
            (g.id, [g.card_number, f"{g.balance} {g.currency}", "void" if g.void else "active"])
            for g in elements
        ]
    return ["Name", "Progress", "Status"], [
        (g.id, [g.name, f"{g.current} / {g.target}", g.status.value]) for g in elements
    ]


def _sale_row(sale: Sale) -> list[str]:
    return [sale.name, _discount(sale.discount), _when(sale.start), _when(sale.expire)]


def _discount(discount: Any) -> str:
    return f"{discount.percentage}%" if discount.type.value == "percentage" else f"{discount.value} off"


def _when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else ""


def _table(section: Section, headings: list[str], rows: list[tuple[int, list[str]]]) -> Safe:
    if not rows:
        return Safe(f"<p>No {escape(section.title.lower())} yet.</p>")
    head = "".join(f"<th>{escape(h)}</th>" for h in ["#", *headings])
    body = "".join(
        f'<tr><td><a href="/catalog/{section.path}/{element_id}">{element_id}</a></td>'
        + "".join(f"<td>{escape(cell)}</td>" for cell in cells)
        + "</tr>"
        for element_id, cells in rows
    )
    return Safe(
        f'<div class="table"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


# --- one element's form -----------------------------------------------------------------------

_FORM = Template(
    '$error<form method="post" action="$action" class="catalog-form">$csrf'
    '<input type="hidden" name="revision" value="$revision">'
    "<fieldset$disabled>$fields</fieldset>$save</form>$delete"
)


def element_page(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    *,
    csrf: Safe,
    can_write: bool,
    done: str = "",
) -> PanelView:
    """A new element's form, or one element's: the element, the form's choices and the catalog
    revision, read together (one round trip)."""
    section = section_of(path)
    element_id = element_ref(ref)
    revision = start_read(DefinitionRepository(services.table).revision, account_id)
    choices = start_read(_choices, services, account_id, section.kind)
    values: dict[str, str] = {}
    if element_id is not None:
        values = form_values(_element(services, account_id, section.kind, element_id))
    elif section.kind == "gift_card":
        values = {"currency": StoreRepository(services.table).store(account_id).currency}
    return _form_view(
        section,
        element_id,
        values,
        revision=revision.result(),
        options=choices.result(),
        csrf=csrf,
        can_write=can_write,
        notice=_done(done),
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
    if kind not in ("package", "category"):
        return {}
    categories = [
        (str(c.id), f"{c.name} (#{c.id})") for c in CatalogLists(services.table).categories(account_id)
    ]
    if kind == "category":
        return {"parent_id": categories}
    servers = AccountRepository(services.table).servers(account_id)
    return {
        "category_id": categories,
        "server_id": [(str(s.id), f"{s.name} (#{s.id})") for s in servers.values()],
    }


def _form_view(
    section: Section,
    element_id: int | None,
    values: dict[str, str],
    *,
    revision: int,
    options: dict[str, list[tuple[str, str]]],
    csrf: Safe,
    can_write: bool,
    error: str = "",
    status: int = 200,
    notice: Safe = Safe(""),
) -> PanelView:
    base = f"/catalog/{section.path}"
    ref = "new" if element_id is None else str(element_id)
    label = values.get("name") or values.get("title") or values.get("code") or values.get("card_number") or ""
    title = (
        f"New {section.singular}" if element_id is None else f"{section.singular.capitalize()} {element_id}"
    )
    heading = Safe(f"<h1>{escape(title)}{' · ' + escape(label) if label else ''}</h1>")
    error_html = (
        Safe(f'<p class="error" role="alert" id="form-error">{escape(error)}</p>') if error else Safe("")
    )
    deletable = (
        can_write
        and element_id is not None
        and section.kind in edits.KINDS
        and edits.KINDS[section.kind].removable
    )
    delete = (
        Safe(
            f'<form method="post" action="{base}/{element_id}/delete" class="delete">{csrf}'
            f'<input type="hidden" name="revision" value="{revision}">'
            f'<button type="submit" class="danger">Delete this {escape(section.singular)}</button></form>'
        )
        if deletable
        else Safe("")
    )
    form = fill(
        _FORM,
        error=error_html,
        action=f"{base}/{quote(ref)}",
        csrf=csrf,
        revision=str(revision),
        disabled=Safe("" if can_write else " disabled"),
        fields=render_fields(section.kind, values, creating=element_id is None, options=options),
        save=Safe('<button type="submit">Save</button>' if can_write else ""),
        delete=delete,
    )
    body = Safe(subnav(section.path) + heading + notice + form)
    return PanelView(title, body, status)


def save_page(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    form: dict[str, str],
    *,
    actor: str,
    csrf: Safe,
    now: datetime,
) -> PanelView:
    """Save one element from its form: 303 to its page, or the form again with the message
    (422 a mistake, 409 changed meanwhile; nothing written either way)."""
    section = section_of(path)
    element_id = element_ref(ref)
    revision = _revision(form)
    values = read_form(section.kind, form, creating=element_id is None)
    try:
        saved = edits.save_element(
            services,
            account_id,
            section.kind,
            element_id,
            values,
            actor=actor,
            revision=revision,
            now=now,
            covers=covered(section.kind),
        )
    except (Invalid, Conflict) as refused:
        return _form_view(
            section,
            element_id,
            {k: v for k, v in form.items() if k not in ("csrf", "revision")},
            revision=revision,
            options=_choices(services, account_id, section.kind),
            csrf=csrf,
            can_write=True,
            error=refused.detail,
            status=refused.status,
        )
    return PanelView(redirect=f"/catalog/{section.path}/{saved.element_id}?done=saved")


def delete_page(
    services: Services,
    account_id: int,
    path: str,
    ref: str,
    form: dict[str, str],
    *,
    actor: str,
    now: datetime,
) -> PanelView:
    section = section_of(path)
    element_id = element_ref(ref)
    if element_id is None:
        raise NotFound("No such catalog element")
    try:
        edits.delete_element(
            services, account_id, section.kind, element_id, actor=actor, revision=_revision(form), now=now
        )
    except (Invalid, Conflict) as refused:
        back = f"/catalog/{section.path}/{element_id}"
        body = Safe(
            subnav(section.path)
            + f'<h1>Not deleted</h1><p class="error" role="alert">{escape(refused.detail)}</p>'
            + f'<p><a href="{back}">Back to the {escape(section.singular)}</a></p>'
        )
        return PanelView("Not deleted", body, refused.status)
    return PanelView(redirect=f"/catalog/{section.path}?done=deleted")


def _revision(form: dict[str, str]) -> int:
    text = form.get("revision", "")
    if not (text.isascii() and text.isdigit()):
        raise Invalid("revision is missing: reload the page", field="revision")
    return int(text)
