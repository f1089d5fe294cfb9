"""The owner's templates (docs/shop.md, "Owner templates"): save a version, publish one (or go
back to any earlier one, or to the house's file), preview a draft, export and import the whole
theme as a file. HTTP-free; the panel's Shop pages (webstore.admin.shop_pages) call these.

Validation: a template is checked before it is stored: it must parse, and every page of the
shop must render with it against the store's own data of the moment (the home page, the first
category, package and custom page, the log-in page, an empty basket, the error page), so an
unknown variable or a sandbox violation is refused with its file and line. What the data of a
later request still breaks (a variable only a full basket has) falls back at request time
(`webstore.shop.pages.render_themed`), and the panel lists it (`failures` of the live theme).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webstore.errors import Conflict, DomainError, Invalid, NotFound
from webstore.html.owner import THEME, OwnerTemplateError, check_template, render_owner
from webstore.repo import Table, start_read
from webstore.repo.audit_log import Audit
from webstore.repo.shop_theme import STALE, ShopLook, ShopTheme, ShopThemeRepository, TemplateVersion
from webstore.repo.store import StoreView
from webstore.services import Services
from webstore.shop import assets, maintenance
from webstore.shop.catalog_section import ShopSection
from webstore.shop.look import LABELS, parse_look
from webstore.shop.pages import (
    Build,
    build_basket,
    build_category,
    build_custom_page,
    build_home,
    build_login,
    build_package,
    content_security_policy,
    maintenance_vars,
    origin,
    page_context,
    problem_vars,
    render_themed,
)
from webstore.shop.reads import ShopData, Visitor, read_shop
from webstore.storefront.shown import visible_packages

# Every file of the default theme an owner may replace (bare.html, the page shown when there is
# no store to brand, stays the house's).
EDITABLE: tuple[str, ...] = tuple(
    sorted(p.relative_to(THEME).as_posix() for p in THEME.rglob("*.html") if p.name != "bare.html")
)
MAX_SOURCE_CHARS = 32_000  # one file
MAX_THEME_CHARS = 300_000  # the live item: every published file and its fallback (DynamoDB: 400 KB)
FILE_FORMAT = "webstore-shop-theme"
FILE_VERSION = 1
MAX_FILE_CHARS = 700_000

# The page a template's preview shows: the page that renders it (layout and modules: the home).
PREVIEW_PAGE = {
    "category.html": "category",
    "package.html": "package",
    "options.html": "package",
    "package_card.html": "category",
    "price.html": "package",
    "username.html": "login",
    "checkout.html": "basket",
    "giftcard.html": "giftcard",
    "cms/page.html": "page",
    "error.html": "error",
    "maintenance.html": "maintenance",
}


# The template the editor opens when none is named: the shop's home page.
FIRST_EDITED = "index.html"


def editable(name: str) -> str:
    """`name` if it is one of the shop's templates; none named: the home page's."""
    if not name:
        return FIRST_EDITED
    if name not in EDITABLE:
        raise NotFound(f"The shop has no template named {name[:80]!r}")
    return name


def house_source(name: str) -> str:
    return (THEME / editable(name)).read_text()


def normalized(source: str) -> str:
    return source.replace("\r\n", "\n").replace("\r", "\n")


@dataclass(frozen=True)
class Sample:
    """One page of the shop as the store's data makes it now: what a template is checked on."""

    page: str
    template: str
    title: str
    context: dict[str, Any]


def samples(data: ShopData, *, shop_url: str = "") -> list[Sample]:
    """Every page of the shop, built from `data` (the preview's visitor: no basket)."""
    from webstore.shop import giftcard
    from webstore.shop.context import Builder

    visitor = Visitor(csrf="preview-token-0000")
    urls = {k: shop_url.rstrip("/") + v for k, v in assets.urls().items()} if shop_url else None
    b = Builder(data, csrf=visitor.csrf, assets=urls or assets.urls())
    builds: list[tuple[str, Build]] = [("home", build_home)]
    categories = sorted(data.view.categories, key=lambda c: (c.order, c.id))
    if categories:
        builds.append(("category", build_category(str(categories[0].id))))
    packages = visible_packages(data.view)
    if packages:
        builds.append(("package", build_package(str(packages[0].id))))
    shown = [p for p in data.view.pages if not (p.disabled or p.private)]
    if shown:
        builds.append(("page", build_custom_page(shown[0].slug)))
    builds += [("login", build_login()), ("basket", build_basket())]
    builds.append(("giftcard", giftcard.build(giftcard.SAMPLE["code"], giftcard.SAMPLE)))
    found: list[Sample] = []
    for page, build in builds:
        template, title, extra = build(data, b)
        found.append(
            Sample(page, template, title, page_context(data, visitor, title, extra, asset_urls=urls))
        )
    missing = NotFound("There is nothing at this address")
    context = page_context(data, visitor, missing.title, problem_vars(missing), asset_urls=urls)
    found.append(Sample("error", "error.html", missing.title, context))
    context = page_context(data, visitor, maintenance.TITLE, maintenance_vars(data), asset_urls=urls)
    found.append(Sample("maintenance", "maintenance.html", maintenance.TITLE, context))
    return found


def failures(overrides: Mapping[str, str], pages: list[Sample]) -> list[OwnerTemplateError]:
    """What fails when the shop's pages render with `overrides` (no fallback): one error per
    file and line."""
    seen: dict[tuple[str, int | None, str], OwnerTemplateError] = {}
    for sample in pages:
        try:
            render_owner(sample.template, overrides=overrides, **sample.context)
        except OwnerTemplateError as error:
            seen.setdefault((error.name, error.line, error.message), error)
    return list(seen.values())


def check(name: str, source: str, live: ShopTheme, pages: list[Sample]) -> None:
    """Refuse `source` as `name` (Invalid, naming the file and line) unless it parses and every
    page renders with it among the live theme's other files."""
    if len(source) > MAX_SOURCE_CHARS:
        raise Invalid(f"{name} is {len(source):,} characters; a template may have {MAX_SOURCE_CHARS:,}")
    try:
        check_template(name, source)
    except OwnerTemplateError as error:
        raise Invalid(str(error), field="source") from error
    refused = failures({**live.sources, name: source}, pages)
    if refused:
        raise Invalid(str(refused[0]), field="source")


def _fits(theme: ShopTheme) -> None:
    size = sum(map(len, theme.sources.values())) + sum(map(len, theme.last_good.values()))
    if size > MAX_THEME_CHARS:
        raise Invalid(
            f"The published templates and their fallbacks would be {size:,} characters; "
            f"a theme may have {MAX_THEME_CHARS:,} (publish the house's file for some, or shorten them)"
        )


def _published(
    new: ShopTheme, old: ShopTheme, name: str, version: int, source: str | None, failing: set[str]
) -> None:
    """`new` serving `source` (None: the house's file) as `name`. The file it replaces becomes
    the fallback if it renders today (else the fallback stays the one before)."""
    if name in old.sources and name not in failing:
        new.last_good[name] = old.sources[name]
        new.last_good_versions[name] = old.published[name]
    elif name not in old.sources:
        new.last_good.pop(name, None)
        new.last_good_versions.pop(name, None)
    if source is None:
        new.sources.pop(name, None)
        new.published.pop(name, None)
    else:
        new.sources[name] = source
        new.published[name] = version


@dataclass
class Editing:
    """What a change reads first, together: the live theme (consistent) and the shop's pages."""

    live: ShopTheme
    data: ShopData
    pages: list[Sample]


def read_for_edit(services: Services, account_id: int, seen_revision: int | None = None) -> Editing:
    repository = ShopThemeRepository(services.table)
    live_read = start_read(repository.live, account_id)
    data = read_shop(services, Visitor(), account_id=account_id)
    live = live_read.result()
    if seen_revision is not None and live.revision != seen_revision:
        raise STALE
    return Editing(live, data, samples(data, shop_url=services.settings.shop_url))


def _next(live: ShopTheme, now: datetime) -> ShopTheme:
    new = live.model_copy(deep=True)
    new.revision = live.revision + 1
    new.changed_at = now
    return new


def save(
    services: Services,
    account_id: int,
    name: str,
    source: str,
    *,
    publish: bool,
    seen_revision: int,
    actor: str,
    now: datetime,
) -> int:
    """Store `source` as the next version of `name` (checked first), published at once if
    `publish`: one transaction with the audit entry. The version's number."""
    name, source = editable(name), normalized(source)
    editing = read_for_edit(services, account_id, seen_revision)
    check(name, source, editing.live, editing.pages)
    version = editing.live.latest.get(name, 0) + 1
    new = _next(editing.live, now)
    new.latest[name] = version
    if publish:
        failing = {e.name for e in failures(editing.live.sources, editing.pages)}
        _published(new, editing.live, name, version, source, failing)
        _fits(new)
    saved = TemplateVersion(name=name, version=version, source=source, saved_at=now, actor=actor)
    action = "shop.template.publish" if publish else "shop.template.save"
    summary = f"{name}: version {version} saved" + (" and published" if publish else "")
    ShopThemeRepository(services.table).change(
        account_id, editing.live, new, [saved], Audit(actor, action, summary, now)
    )
    return version


def publish(
    services: Services,
    account_id: int,
    name: str,
    version: int,
    *,
    seen_revision: int,
    actor: str,
    now: datetime,
) -> None:
    """Serve `version` of `name` (any kept one: a rollback), or the house's file (`version` 0);
    checked first, one transaction with the audit entry."""
    name = editable(name)
    repository = ShopThemeRepository(services.table)
    chosen = start_read(repository.version, account_id, name, version) if version else None
    editing = read_for_edit(services, account_id, seen_revision)
    source = chosen.result().source if chosen else None
    if source is not None:
        check(name, source, editing.live, editing.pages)
    elif name not in editing.live.sources:
        raise Conflict(f"{name} is the house's file already")
    failing = {e.name for e in failures(editing.live.sources, editing.pages)}
    new = _next(editing.live, now)
    _published(new, editing.live, name, version, source, failing)
    _fits(new)
    summary = f"{name}: version {version} published" if version else f"{name}: the house's file published"
    repository.change(account_id, editing.live, new, [], Audit(actor, "shop.template.publish", summary, now))


def preview(services: Services, account_id: int, name: str, source: str) -> tuple[str, str]:
    """The page that shows `name`, rendered with `source` as a draft among the live theme's
    files (nothing stored): its HTML and policy (stylesheet from the shop, no script, no form).
    Refused like a save when the draft does not render."""
    name, source = editable(name), normalized(source)
    editing = read_for_edit(services, account_id)
    check(name, source, editing.live, editing.pages)
    wanted = PREVIEW_PAGE.get(name, "home")
    sample = next((s for s in editing.pages if s.page == wanted), editing.pages[0])
    html = render_owner(sample.template, overrides={**editing.live.sources, name: source}, **sample.context)
    style = sample.context["store"]["theme_style"]
    return html, content_security_policy(style, asset_origin=origin(services.settings.shop_url), preview=True)


def preview_look(services: Services, account_id: int, fields: Mapping[str, str]) -> tuple[str, str]:
    """The home page with the form's look (panel → Shop → Look) over the live theme, nothing
    stored: its HTML and policy (as a template's preview). Invalid like a save."""
    look = parse_look(fields)
    data = read_shop(services, Visitor(), account_id=account_id)
    data.theme = data.theme.model_copy(update={"look": look})
    home = samples(data, shop_url=services.settings.shop_url)[0]
    html = render_themed(home.template, data.theme, home.context)
    style = home.context["store"]["theme_style"]
    return html, content_security_policy(style, asset_origin=origin(services.settings.shop_url), preview=True)


# --- the theme as a file ------------------------------------------------------------------------


def export_file(theme: ShopTheme) -> str:
    """The live theme as a file: every published template by name (house files left out)."""
    document = {
        "format": FILE_FORMAT,
        "version": FILE_VERSION,
        "templates": dict(sorted(theme.sources.items())),
        "look": theme.look.model_dump(),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def parse_file(text: str) -> dict[str, str]:
    """A theme file's templates, or Invalid saying what is wrong with it."""
    if len(text) > MAX_FILE_CHARS:
        raise Invalid(f"The theme file is larger than {MAX_FILE_CHARS:,} characters", field="theme")
    try:
        document = json.loads(text)
    except ValueError as error:
        raise Invalid(f"The theme file is not JSON: {error}", field="theme") from error
    if not isinstance(document, dict) or document.get("format") != FILE_FORMAT:
        raise Invalid(f"This is not a shop theme file (its format should be {FILE_FORMAT!r})", field="theme")
    if document.get("version") != FILE_VERSION:
        raise Invalid(
            f"Theme file version {document.get('version')!r} is not one this store reads", field="theme"
        )
    templates = document.get("templates")
    if not isinstance(templates, dict) or not all(isinstance(v, str) for v in templates.values()):
        raise Invalid("The theme file's templates should map each file name to its text", field="theme")
    unknown = sorted(set(templates) - set(EDITABLE))
    if unknown:
        raise Invalid(
            f"The theme file names templates the shop does not have: {', '.join(unknown)}", field="theme"
        )
    return {name: normalized(source) for name, source in templates.items()}


def file_look(text: str) -> ShopLook | None:
    """A theme file's look (panel → Shop → Look), checked as the form is; None when the file
    has none (a file exported before the look existed: the store's look stays)."""
    look = json.loads(text).get("look")  # parse_file has read it as a theme file
    if look is None:
        return None
    if not isinstance(look, dict) or not all(isinstance(v, str) for v in look.values()):
        raise Invalid("The theme file's look should map each setting to its text", field="theme")
    unknown = sorted(set(look) - set(LABELS))
    if unknown:
        raise Invalid(f"The theme file's look names settings the shop does not have: {', '.join(unknown)}")
    return parse_look(look)


def import_file(services: Services, account_id: int, text: str, *, actor: str, now: datetime) -> list[str]:
    """Publish a theme file: each of its templates as a new version, every other file back to
    the house's; checked together first, one transaction with the audit entry. The names."""
    templates = parse_file(text)
    editing = read_for_edit(services, account_id)
    for name, source in templates.items():
        if len(source) > MAX_SOURCE_CHARS:
            raise Invalid(f"{name} is {len(source):,} characters; a template may have {MAX_SOURCE_CHARS:,}")
        try:
            check_template(name, source)
        except OwnerTemplateError as error:
            raise Invalid(str(error), field="theme") from error
    refused = failures(templates, editing.pages)
    if refused:
        raise Invalid(str(refused[0]), field="theme")
    failing = {e.name for e in failures(editing.live.sources, editing.pages)}
    new = _next(editing.live, now)
    saved: list[TemplateVersion] = []
    for name in sorted(set(templates) | set(editing.live.sources)):
        if name in templates:
            version = editing.live.latest.get(name, 0) + 1
            new.latest[name] = version
            saved.append(
                TemplateVersion(name=name, version=version, source=templates[name], saved_at=now, actor=actor)
            )
            _published(new, editing.live, name, version, templates[name], failing)
        else:
            _published(new, editing.live, name, 0, None, failing)
    look = file_look(text)
    if look is not None:
        new.look = look
    _fits(new)
    summary = f"theme imported: {', '.join(sorted(templates)) or 'the house files only'}"
    ShopThemeRepository(services.table).change(
        account_id, editing.live, new, saved, Audit(actor, "shop.theme.import", summary, now)
    )
    return sorted(templates)


__all__ = [
    "EDITABLE",
    "DomainError",
    "Sample",
    "catalog_theme",
    "check",
    "editable",
    "export_file",
    "failures",
    "file_look",
    "house_source",
    "import_file",
    "parse_file",
    "preview",
    "preview_look",
    "publish",
    "read_for_edit",
    "samples",
    "save",
    "write_catalog_theme",
]


# --- the theme in the catalog file (`shop`) ----------------------------------------------------


@dataclass
class CatalogTheme:
    """What a catalog file's `shop` section changes: the live theme it replaces, the new one,
    the template versions it saves."""

    live: ShopTheme
    new: ShopTheme
    saved: list[TemplateVersion]
    summary: str


def catalog_theme(
    table: Table, view: StoreView, section: ShopSection, *, actor: str, now: datetime
) -> CatalogTheme | None:
    """The live theme a catalog file's `shop` section makes (its templates published, every
    other file the house's, its look), checked against the file's own store data (`view`)
    before anything is written: Invalid naming `shop.templates.<file>` and the line. None when
    the shop already is what the section says (an export imported again writes nothing)."""
    account_id = view.store.id
    live = ShopThemeRepository(table).live(account_id)
    templates = section.templates
    unknown = sorted(set(templates) - set(EDITABLE))
    if unknown:
        raise Invalid(f"shop.templates: the shop has no template named {', '.join(unknown)}", field="shop")
    look = ShopLook(**section.look.model_dump())
    if templates == live.sources and look == live.look:
        return None
    pages = samples(ShopData(view=view, basket=None, now=now, theme=live))
    for name, source in templates.items():
        try:
            check_template(name, source)
        except OwnerTemplateError as error:
            raise Invalid(f"shop.templates.{name}: {error}", field="shop") from error
    refused = failures(templates, pages)
    if refused:
        raise Invalid(f"shop.templates.{refused[0].name}: {refused[0]}", field="shop")
    failing = {e.name for e in failures(live.sources, pages)}
    new = _next(live, now)
    saved: list[TemplateVersion] = []
    for name in sorted(set(templates) | set(live.sources)):
        if name not in templates:
            _published(new, live, name, 0, None, failing)
        elif live.sources.get(name) != templates[name]:
            version = live.latest.get(name, 0) + 1
            new.latest[name] = version
            saved.append(
                TemplateVersion(name=name, version=version, source=templates[name], saved_at=now, actor=actor)
            )
            _published(new, live, name, version, templates[name], failing)
    new.look = look
    _fits(new)
    changed = [v.name for v in saved] + sorted(set(live.sources) - set(templates))
    said = ", ".join(changed) or "no template"
    summary = f"catalog import: {said} changed" + ("; the look changed" if look != live.look else "")
    return CatalogTheme(live, new, saved, summary)


def write_catalog_theme(
    table: Table, account_id: int, plan: CatalogTheme, *, actor: str, now: datetime
) -> None:
    """Write what `catalog_theme` planned: one transaction with its audit entry (Conflict when an
    editor changed the theme meanwhile)."""
    audit = Audit(actor, "shop.theme.import", plan.summary, now)
    ShopThemeRepository(table).change(account_id, plan.live, plan.new, plan.saved, audit)
