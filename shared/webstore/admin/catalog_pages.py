"""The panel's catalog sections (`/catalog`, `/catalog/{section}`): the sections, their
navigation and their lists (one round trip whatever the store's size: lists paged in the
database). One element's form is `catalog_element_pages`, the store's settings
`settings_pages`, the audit log `audit_pages`. HTTP-free: each answers a `PanelPage`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from webstore.admin.flow import PanelPage
from webstore.catalog import Category, Sale
from webstore.errors import Invalid, NotFound
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.store import StoreRepository
from webstore.services import Services

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


def list_page(
    services: Services, account_id: int, path: str, after: str | None, *, may_write: Callable[[], bool]
) -> PanelPage:
    """One page of a section (the categories: their whole tree). `may_write`: asked once the
    page is read (whether to offer "New …"), so the session is read beside the page."""
    section = section_of(path)
    lists = CatalogLists(services.table)
    cursor = _cursor(after)
    next_after: int | None = None
    tree: list[Branch] | None = None
    headings: list[str] = []
    rows: list[tuple[int, list[str]]] = []
    if section.kind == "category":
        tree = category_tree(lists.categories(account_id))
    elif section.kind == "sale":
        sales = StoreRepository(services.table).store(account_id).sales
        headings, rows = ["Name", "Discount", "From", "Until"], [(s.id, _sale_row(s)) for s in sales]
    else:
        # A package list names the categories: read beside the page (one round trip).
        names = start_read(lists.categories, account_id) if section.kind == "package" else None
        page = lists.page(account_id, section.kind, cursor, PER_PAGE)
        next_after = page.next_after
        categories = {c.id: c.name for c in names.result()} if names else {}
        headings, rows = _columns(section.kind, page.elements, categories)
    body = fragment(
        "panel/catalog/list.html",
        sections=SECTIONS.values(),
        section=section,
        can_write=may_write(),
        tree=tree,
        headings=headings,
        rows=rows,
        next_page=f"/catalog/{section.path}?{urlencode({'after': next_after})}"
        if next_after is not None
        else "",
    )
    return PanelPage(section.title, body, "catalog")


@dataclass(frozen=True)
class Branch:
    """A category in the tree, with its flags and its subcategories."""

    category: Category
    flags: str  # "tiered dynamic"
    children: list[Branch]


def category_tree(categories: list[Category]) -> list[Branch]:
    """The categories as their tree (by order then id; a missing parent: a root; 20 deep at most)."""
    children: dict[int | None, list[Category]] = {}
    for category in sorted(categories, key=lambda c: (c.order, c.id)):
        parent = category.parent_id if any(c.id == category.parent_id for c in categories) else None
        children.setdefault(parent, []).append(category)

    def branch(parent: int | None, depth: int) -> list[Branch]:
        if depth > 20:
            return []
        return [
            Branch(
                c,
                " ".join(f for f, on in (("tiered", c.tiered), ("dynamic", c.dynamic)) if on),
                branch(c.id, depth + 1),
            )
            for c in children.get(parent, [])
        ]

    return branch(None, 0)


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


# --- what the catalog's element forms and the settings share ----------------------------------


def revision_of(form: dict[str, str]) -> int:
    """The catalog revision a form was read at (its save claims it)."""
    text = form.get("revision", "")
    if not (text.isascii() and text.isdigit()):
        raise Invalid("revision is missing: reload the page", field="revision")
    return int(text)


def catalog_home() -> PanelPage:
    """`/catalog`: the sections (no read of the table beyond the session)."""
    return PanelPage("Catalog", fragment("panel/catalog/home.html", sections=SECTIONS.values()), "catalog")
