"""The panel's catalog pages (`/catalog/{section}`, `/catalog/{section}/{id}`, `/settings`,
`/audit`): what each reads (one to three round trips whatever the store's size: lists paged in
the database, the form's choices read beside the element) and the page body it renders.
HTTP-free: a handler wraps the body in the panel's layout. Every value is escaped (`fill`).

A save is `webstore.admin.catalog` (the catalog file's validation and import); a refused save
renders the form again with what was typed and the import's message beside it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from string import Template
from typing import Any
from urllib.parse import quote, urlencode

from webstore.admin import catalog as edits
from webstore.admin.catalog_forms import covered, form_values, read_form, render_fields
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.catalog import Category, Sale
from webstore.errors import Conflict, Forbidden, Invalid, NotFound
from webstore.repo import start_read
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, escape, fill

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
    links.append(Safe(f'<a href="/settings"{_current(current == "settings")}>Store settings</a>'))
    return fill(_SUBNAV, links=Safe(" ".join(links)))


def _current(yes: bool) -> str:
    return ' aria-current="page"' if yes else ""


def list_page(
    services: Services, account_id: int, path: str, after: str | None, *, can_write: bool
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
    return PanelView(section.title, Safe(subnav(section.path) + new + body + more))


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
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
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
    body = Safe(subnav(section.path) + heading + form)
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
    done = "No+changes" if saved.unchanged else "Saved"
    return PanelView(redirect=f"/catalog/{section.path}/{saved.element_id}?done={done}")


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
    return PanelView(redirect=f"/catalog/{section.path}?done=Deleted")


def _revision(form: dict[str, str]) -> int:
    text = form.get("revision", "")
    if not (text.isascii() and text.isdigit()):
        raise Invalid("revision is missing: reload the page", field="revision")
    return int(text)


# --- store settings: the store section, its sidebar modules, its gateways ----------------------

_SIDEBAR_ROW = Template(
    '<form method="post" action="/settings/sidebar/$ref" class="sidebar-module">$csrf'
    '<input type="hidden" name="revision" value="$revision">'
    "<fieldset$disabled>$fields</fieldset>$buttons</form>"
)
_GATEWAYS = Template(
    '<form method="post" action="/settings/gateways" class="gateways">$csrf'
    '<input type="hidden" name="revision" value="$revision"><fieldset$disabled>'
    '<label for="g-pk">Stripe publishable key</label>'
    '<input id="g-pk" name="publishable_key" value="$publishable" autocomplete="off">'
    '<label for="g-sk">Stripe secret key</label>'
    '<input id="g-sk" type="password" name="secret_key" value="" autocomplete="new-password" '
    'placeholder="$secret_state">'
    '<label for="g-wh">Stripe webhook signing secret</label>'
    '<input id="g-wh" type="password" name="webhook_secret" value="" autocomplete="new-password" '
    'placeholder="$webhook_state">'
    '<small class="help">Secrets are never shown again: leave a field blank to keep the one the '
    "store has.</small>"
    '<label for="g-sb">Sandbox gateway</label><select id="g-sb" name="sandbox">$sandbox</select>'
    "</fieldset>$save</form>"
)


@dataclass(frozen=True)
class SettingsErrors:
    """Which form of the settings page was refused, with what was typed and the message."""

    form: str  # "store", "sidebar:<ref>", "gateways"
    message: str
    typed: dict[str, str]


def settings_page(
    services: Services,
    account_id: int,
    *,
    csrf: Safe,
    can_write: bool,
    refused: SettingsErrors | None = None,
    status: int = 200,
) -> PanelView:
    """The store section, its sidebar and its gateways: the store item and the revision, read
    together (one round trip). Gateway secrets are write-only: never rendered, blank = keep."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    store = StoreRepository(services.table).store(account_id)
    revision = str(revision_read.result())
    disabled = Safe("" if can_write else " disabled")
    save = Safe('<button type="submit">Save</button>' if can_write else "")

    def error_for(form: str) -> Safe:
        if refused is None or refused.form != form:
            return Safe("")
        return Safe(f'<p class="error" role="alert">{escape(refused.message)}</p>')

    def typed_or(form: str, values: dict[str, str]) -> dict[str, str]:
        return refused.typed if refused is not None and refused.form == form else values

    store_values = typed_or("store", form_values(store.model_dump(mode="json", exclude={"sidebar"})))
    settings_form = fill(
        _FORM,
        error=error_for("store"),
        action="/settings",
        csrf=csrf,
        revision=revision,
        disabled=disabled,
        fields=render_fields("store", store_values, creating=False),
        save=save,
        delete=Safe(""),
    )
    modules = []
    for n, module in enumerate([*store.sidebar, None]):
        ref = "new" if module is None else str(n)
        if module is None and not can_write:
            continue
        values = typed_or(f"sidebar:{ref}", form_values(module.model_dump(mode="json")) if module else {})
        buttons = (
            Safe(
                '<button type="submit">'
                + ("Add module" if module is None else "Save")
                + "</button>"
                + (
                    '<button type="submit" name="delete" value="1" class="danger">Remove</button>'
                    if module
                    else ""
                )
            )
            if can_write
            else Safe("")
        )
        modules.append(
            error_for(f"sidebar:{ref}")
            + fill(
                _SIDEBAR_ROW,
                ref=ref,
                csrf=csrf,
                revision=revision,
                disabled=disabled,
                fields=render_fields("sidebar", values, creating=module is None),
                buttons=buttons,
            )
        )
    stripe = store.gateways.stripe
    sandbox = store.gateways.sandbox
    gateways = error_for("gateways") + fill(
        _GATEWAYS,
        csrf=csrf,
        revision=revision,
        disabled=disabled,
        publishable=(
            refused.typed.get("publishable_key", "") if refused and refused.form == "gateways" else ""
        )
        or (stripe.publishable_key if stripe else ""),
        secret_state="set: blank keeps it" if stripe else "not set",
        webhook_state="set: blank keeps it" if stripe else "not set",
        sandbox=Safe(
            "".join(
                f'<option value="{v}"{" selected" if current else ""}>{label}</option>'
                for v, label, current in (
                    ("", "the default for this stage", sandbox is None),
                    ("on", "allowed", sandbox is True),
                    ("off", "refused", sandbox is False),
                )
            )
        ),
        save=save,
    )
    body = Safe(
        subnav("settings")
        + "<h1>Store settings</h1>"
        + settings_form
        + "<h2>Sidebar modules</h2>"
        + "".join(modules)
        + "<h2>Payment gateways</h2>"
        + gateways
    )
    return PanelView("Store settings", body, status)


def save_settings_page(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, csrf: Safe, now: datetime
) -> PanelView:
    values = read_form("store", form, creating=False)
    return _settings_save(
        services,
        account_id,
        "store",
        form,
        csrf,
        lambda revision: edits.save_store_settings(
            services, account_id, values, actor=actor, revision=revision, now=now, covers=covered("store")
        ),
    )


def save_sidebar_page(
    services: Services,
    account_id: int,
    ref: str,
    form: dict[str, str],
    *,
    actor: str,
    csrf: Safe,
    now: datetime,
) -> PanelView:
    """Add (`new`), replace or remove (`delete=1`) one sidebar module by its position."""
    if ref != "new" and not (ref.isascii() and ref.isdigit() and len(ref) <= 4):
        raise NotFound("No such sidebar module")
    position = None if ref == "new" else int(ref)
    values = None if form.get("delete") == "1" else read_form("sidebar", form, creating=position is None)
    return _settings_save(
        services,
        account_id,
        f"sidebar:{ref}",
        form,
        csrf,
        lambda revision: edits.save_sidebar_module(
            services, account_id, position, values, actor=actor, revision=revision, now=now
        ),
    )


def save_gateways_page(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, csrf: Safe, now: datetime
) -> PanelView:
    sandbox = {"on": True, "off": False}.get(form.get("sandbox", ""))
    return _settings_save(
        services,
        account_id,
        "gateways",
        form,
        csrf,
        lambda revision: edits.save_gateways(
            services,
            account_id,
            publishable_key=form.get("publishable_key", ""),
            secret_key=form.get("secret_key", ""),
            webhook_secret=form.get("webhook_secret", ""),
            sandbox=sandbox,
            actor=actor,
            revision=revision,
            now=now,
        ),
    )


def _settings_save(
    services: Services,
    account_id: int,
    which: str,
    form: dict[str, str],
    csrf: Safe,
    save: Callable[[int], object],
) -> PanelView:
    try:
        saved = save(_revision(form))
    except (Invalid, Conflict) as refused:
        # Secrets are never written back into a page, not even the ones just typed.
        hidden = ("csrf", "revision", "delete", "secret_key", "webhook_secret")
        typed = {k: v for k, v in form.items() if k not in hidden}
        return settings_page(
            services,
            account_id,
            csrf=csrf,
            can_write=True,
            refused=SettingsErrors(which, refused.detail, typed),
            status=refused.status,
        )
    unchanged = isinstance(saved, edits.Saved) and saved.unchanged
    return PanelView(redirect="/settings?done=" + ("No+changes" if unchanged else "Saved"))


# --- the audit log ----------------------------------------------------------------------------


def audit_page(services: Services, account_id: int, cursor: str | None) -> PanelView:
    """Who changed what and when, newest first: one Query a page."""
    page = AuditLog(services.table).page(account_id, cursor or None)
    rows = "".join(
        "<tr>"
        + f'<td><time datetime="{escape(e.at.isoformat())}">{escape(_when(e.at))}</time></td>'
        + f"<td>{escape(e.actor)}</td><td>{escape(e.action)}</td><td>{escape(e.summary)}</td>"
        + "</tr>"
        for e in page.entries
    )
    table = (
        '<div class="scroll"><table><thead><tr><th>When</th><th>Who</th><th>What</th><th>Change</th></tr>'
        f"</thead><tbody>{rows}</tbody></table></div>"
        if rows
        else "<p>Nothing recorded yet.</p>"
    )
    more = (
        f'<p><a rel="next" href="/audit?{urlencode({"cursor": page.next_cursor})}">Older entries</a></p>'
        if page.next_cursor
        else ""
    )
    return PanelView("Audit log", Safe("<h1>Audit log</h1>" + table + more))


# --- as the panel serves them: the role checked, the body in the shell --------------------------


def _result(view: PanelView, session: StaffSession, section: str, done: str = "") -> PageResult:
    if view.redirect:
        return PageResult(redirect=view.redirect)
    page = panel_page(view.title, Safe(view.body), session=session, section=section, done=done)
    return PageResult(view.status, page)


def show_catalog(services: Services, session: StaffSession) -> PageResult:
    """`/catalog`: the sections (no read of the table beyond the session)."""
    cards = "".join(
        f'<div class="card"><a href="/catalog/{s.path}">{escape(s.title)}</a></div>'
        for s in SECTIONS.values()
    )
    body = Safe(subnav("") + "<h1>Catalog</h1>" + f'<div class="cards">{cards}</div>')
    return _result(PanelView("Catalog", body), session, "catalog")


def show_list(
    services: Services, session: StaffSession, path: str, after: str | None, done: str
) -> PageResult:
    can_write = session.may(Capability.CATALOG_WRITE)
    view = list_page(services, session.account_id, path, after, can_write=can_write)
    return _result(view, session, "catalog", done)


def show_element(services: Services, session: StaffSession, path: str, ref: str, done: str) -> PageResult:
    can_write = session.may(Capability.CATALOG_WRITE)
    if ref == "new" and not can_write:
        raise Forbidden("Your role may not add to the catalog; ask the store's owner.")
    view = element_page(
        services, session.account_id, path, ref, csrf=csrf_field(session), can_write=can_write
    )
    return _result(view, session, "catalog", done)


def save(services: Services, session: StaffSession, path: str, ref: str, form: dict[str, str]) -> PageResult:
    view = save_page(
        services,
        session.account_id,
        path,
        ref,
        form,
        actor=session.email,
        csrf=csrf_field(session),
        now=services.now(),
    )
    return _result(view, session, "catalog")


def delete(
    services: Services, session: StaffSession, path: str, ref: str, form: dict[str, str]
) -> PageResult:
    view = delete_page(services, session.account_id, path, ref, form, actor=session.email, now=services.now())
    return _result(view, session, "catalog")


def show_settings(services: Services, session: StaffSession, done: str) -> PageResult:
    can_write = session.may(Capability.SETTINGS_WRITE)
    view = settings_page(services, session.account_id, csrf=csrf_field(session), can_write=can_write)
    return _result(view, session, "settings", done)


def save_settings(
    services: Services, session: StaffSession, part: str, ref: str, form: dict[str, str]
) -> PageResult:
    """`part`: the store section (`store`), a sidebar module (`sidebar`, `ref` its position or
    `new`), the gateways (`gateways`)."""
    csrf, now, account = csrf_field(session), services.now(), session.account_id
    if part == "gateways":
        view = save_gateways_page(services, account, form, actor=session.email, csrf=csrf, now=now)
    elif part == "sidebar":
        view = save_sidebar_page(services, account, ref, form, actor=session.email, csrf=csrf, now=now)
    else:
        view = save_settings_page(services, account, form, actor=session.email, csrf=csrf, now=now)
    return _result(view, session, "settings")


def show_audit(services: Services, session: StaffSession, cursor: str | None) -> PageResult:
    return _result(audit_page(services, session.account_id, cursor), session, "audit")
