"""The panel's catalog sections (`/catalog`, `/catalog/{section}`): the sections, their
navigation and their lists (one round trip whatever the store's size: lists paged in the
database). One element's form is `catalog_element_pages`, the store's settings
`settings_pages`, the audit log `audit_pages`. HTTP-free: each answers a `PanelPage`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from string import Template
from typing import Any
from urllib.parse import urlencode

from webstore.admin.flow import PanelPage
from webstore.catalog import Category, Sale
from webstore.errors import Invalid, NotFound
from webstore.repo import start_read
from webstore.repo.catalog_lists import CatalogLists
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
    links.append(Safe(f'<a href="/settings"{_current(current == "settings")}>Store settings</a>'))
    return fill(_SUBNAV, links=Safe(" ".join(links)))


def _current(yes: bool) -> str:
    return ' aria-current="page"' if yes else ""


def list_page(
    services: Services, account_id: int, path: str, after: str | None, *, may_write: Callable[[], bool]
) -> PanelPage:
    """One page of a section (the categories: their whole tree). `may_write`: asked once the
    page is read (whether to offer "New …"), so the session is read beside the page."""
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
        # A package list names the categories: read beside the page (one round trip).
        names = start_read(lists.categories, account_id) if section.kind == "package" else None
        page = lists.page(account_id, section.kind, cursor, PER_PAGE)
        next_after = page.next_after
        categories = {c.id: c.name for c in names.result()} if names else {}
        body = _table(section, *_columns(section.kind, page.elements, categories))
    new = (
        Safe(
            f'<p><a class="button" href="/catalog/{section.path}/new">New {escape(section.singular)}</a></p>'
        )
        if may_write()
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
    return PanelPage(section.title, Safe(subnav(section.path) + new + body + more), "catalog")


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


def _columns(
    kind: str, elements: list[Any], categories: dict[int, str]
) -> tuple[list[str], list[tuple[int, list[str]]]]:
    if kind == "package":
        return ["Name", "Category", "Price", "Type", "Commands", "State"], [
            (
                p.id,
                [
                    p.name,
                    categories.get(p.category_id, f"#{p.category_id}"),
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
            (c.id, [c.code, _discount(c.discount), "never" if c.expire_never else when(c.expire_date)])
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
    return [sale.name, _discount(sale.discount), when(sale.start), when(sale.expire)]


def _discount(discount: Any) -> str:
    return f"{discount.percentage}%" if discount.type.value == "percentage" else f"{discount.value} off"


def when(moment: datetime | None) -> str:
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
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


# --- what the catalog's element forms and the settings share ----------------------------------

FORM = Template(
    '$error<form method="post" action="$action" class="catalog-form">$csrf'
    '<input type="hidden" name="revision" value="$revision">'
    "<fieldset$disabled>$fields</fieldset>$save</form>$delete"
)


def revision_of(form: dict[str, str]) -> int:
    """The catalog revision a form was read at (its save claims it)."""
    text = form.get("revision", "")
    if not (text.isascii() and text.isdigit()):
        raise Invalid("revision is missing: reload the page", field="revision")
    return int(text)


def catalog_home() -> PanelPage:
    """`/catalog`: the sections (no read of the table beyond the session)."""
    cards = "".join(
        f'<div class="card"><a href="/catalog/{s.path}">{escape(s.title)}</a></div>'
        for s in SECTIONS.values()
    )
    body = Safe(subnav("") + "<h1>Catalog</h1>" + f'<div class="cards">{cards}</div>')
    return PanelPage("Catalog", body, "catalog")
