"""Panel → Shop (docs/shop.md, "Owner templates"): the shop's templates and what each serves,
the editor of one (preview, save, publish, every kept version with a rollback), the theme as a
file (export, import). Pages render from templates/panel/shop/; the use cases are
webstore.shop.theme's. Each form answers 303 to the page showing the result, or the same page
again with the refusal (a template that does not render: its file and line) and what was typed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin.flow import PanelPage, done_at
from webstore.errors import DomainError, Invalid
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import Services
from webstore.shop import look as shop_look
from webstore.shop import theme

SECTION = "shop"


def editor_href(name: str, version: int | None = None) -> str:
    query = {"name": name} | ({"from": str(version)} if version else {})
    return f"/shop/editor?{urlencode(query)}"


def overview(
    services: Services,
    account_id: int,
    *,
    csrf: Callable[[], str | None],
    import_error: str = "",
    status: int = 200,
) -> PanelPage:
    """Every template: serving (a version or the house's file), the newest saved, the fallback;
    what of the live theme fails with the store's data today; export and import."""
    editing = theme.read_for_edit(services, account_id)
    live = editing.live
    failing = theme.failures(live.sources, editing.pages) if live.sources else []
    rows = [
        {
            "name": name,
            "href": editor_href(name),
            "published": live.published.get(name, 0),
            "latest": live.latest.get(name, 0),
            "fallback": live.last_good_versions.get(name, 0),
        }
        for name in theme.EDITABLE
    ]
    body = fragment(
        "panel/shop/overview.html",
        shop_url=services.settings.shop_url,
        rows=rows,
        failing=[
            {"name": e.name, "line": e.line, "message": e.message, "href": editor_href(e.name)}
            for e in failing
            if e.name in theme.EDITABLE
        ],
        csrf=csrf() or "",
        revision=live.revision,
        import_error=import_error,
    )
    return PanelPage("Shop", body, SECTION, status)


def editor(
    services: Services,
    account_id: int,
    name: str,
    *,
    csrf: Callable[[], str | None],
    start_from: int | None = None,
    typed: Mapping[str, str] | None = None,
    error: str = "",
    status: int = 200,
) -> PanelPage:
    """One template's editor: the text (what was typed, the version asked for, the newest saved,
    or the house's file), its kept versions newest first, each publishable (a rollback)."""
    name = theme.editable(name)
    repository = ShopThemeRepository(services.table)
    versions_read = start_read(repository.versions, account_id, name)
    live = repository.live(account_id)
    versions = versions_read.result()
    if typed is not None:
        source = typed.get("source", "")
    elif start_from:
        source = (
            next((v.source for v in versions if v.version == start_from), None)
            or repository.version(account_id, name, start_from).source
        )
    elif versions:
        source = versions[0].source
    else:
        source = live.sources.get(name) or theme.house_source(name)
    body = fragment(
        "panel/shop/editor.html",
        name=name,
        source=source,
        published=live.published.get(name, 0),
        revision=typed.get("revision", str(live.revision)) if typed is not None else live.revision,
        versions=[
            {
                "version": v.version,
                "saved_at": f"{v.saved_at:%Y-%m-%d %H:%M} UTC",
                "actor": v.actor,
                "href": editor_href(name, v.version),
            }
            for v in versions
        ],
        csrf=csrf() or "",
        error=error,
    )
    return PanelPage(name, body, SECTION, status)


# --- the forms ----------------------------------------------------------------------------------


def _revision(fields: Mapping[str, str]) -> int:
    value = fields.get("revision", "")
    if not value.isascii() or not value.isdigit() or len(value) > 10:
        raise Invalid("The form lacks the templates' revision; reload the page", field="revision")
    return int(value)


def _name(fields: Mapping[str, str]) -> str:
    return theme.editable(fields.get("name", ""))


def save_action(
    services: Services, account_id: int, fields: Mapping[str, str], *, actor: str, now: datetime
) -> str:
    name = _name(fields)
    publish = fields.get("publish") == "1"
    version = theme.save(
        services,
        account_id,
        name,
        fields.get("source", ""),
        publish=publish,
        seen_revision=_revision(fields),
        actor=actor,
        now=now,
    )
    said = f"Version {version} saved" + (" and published" if publish else " as a draft")
    return f"/shop/editor?{urlencode({'name': name, 'done': said})}"


def publish_action(
    services: Services, account_id: int, fields: Mapping[str, str], *, actor: str, now: datetime
) -> str:
    name = _name(fields)
    raw = fields.get("version", "")
    if not raw.isascii() or not raw.isdigit() or len(raw) > 6:
        raise Invalid("Choose a version to publish", field="version")
    version = int(raw)
    theme.publish(services, account_id, name, version, seen_revision=_revision(fields), actor=actor, now=now)
    said = f"Version {version} published" if version else "The house's file is served again"
    return f"/shop/editor?{urlencode({'name': name, 'done': said})}"


def editor_again(
    services: Services,
    account_id: int,
    fields: Mapping[str, str],
    error: DomainError,
    *,
    csrf: Callable[[], str | None],
) -> PanelPage:
    """The editor as it was typed, saying why it was refused (an unknown name: the overview)."""
    name = fields.get("name", "")
    if name not in theme.EDITABLE:
        return overview(services, account_id, csrf=csrf, import_error=error.detail)
    typed = dict(fields) if "source" in fields else None
    return editor(services, account_id, name, csrf=csrf, typed=typed, error=error.detail)


def preview_page(services: Services, account_id: int, fields: Mapping[str, str]) -> tuple[str, str]:
    """The draft's page (HTML, policy): refused like a save when it does not render."""
    return theme.preview(services, account_id, _name(fields), fields.get("source", ""))


def import_action(services: Services, account_id: int, text: str, *, actor: str, now: datetime) -> str:
    names = theme.import_file(services, account_id, text, actor=actor, now=now)
    return done_at("/shop", f"Theme imported: {len(names)} template(s) published")


def export(services: Services, account_id: int) -> str:
    return theme.export_file(ShopThemeRepository(services.table).live(account_id))


LAYOUTS = (("", "Each category's own"), ("grid", "Grid"), ("list", "List"))
HEADER_STYLES = (
    ("", "Banner: logo and name, the menu under them"),
    ("compact", "Compact: one slim bar"),
    ("centered", "Centred: a large logo over the name and menu"),
)


def look_page(
    services: Services,
    account_id: int,
    *,
    csrf: Callable[[], str | None],
    typed: Mapping[str, str] | None = None,
    error: str = "",
    status: int = 200,
) -> PanelPage:
    """The look's form (what was typed, after a refusal), or what it is for a reader."""
    live = ShopThemeRepository(services.table).live(account_id)
    look = live.look.model_dump()
    if typed is not None:
        look = {name: typed.get(name, "") for name in shop_look.LABELS}
    body = fragment(
        "panel/shop/look.html",
        shop_url=services.settings.shop_url,
        look=look,
        layouts=LAYOUTS,
        header_styles=HEADER_STYLES,
        shown=[(look[name], label) for name, label in shop_look.LABELS.items()],
        csrf=csrf() or "",
        revision=typed.get("revision", str(live.revision)) if typed is not None else live.revision,
        error=error,
    )
    return PanelPage("Look", body, SECTION, status)


def look_action(
    services: Services, account_id: int, fields: Mapping[str, str], *, actor: str, now: datetime
) -> str:
    shop_look.save_look(services, account_id, fields, seen_revision=_revision(fields), actor=actor, now=now)
    return done_at("/shop/look", "The look is saved and the shop shows it")


def look_preview(services: Services, account_id: int, fields: Mapping[str, str]) -> tuple[str, str]:
    """The home page with the form's look (HTML, policy), nothing stored."""
    return theme.preview_look(services, account_id, fields)


Again = Callable[[DomainError], PanelPage]

__all__ = [
    "Again",
    "editor",
    "editor_again",
    "editor_href",
    "export",
    "import_action",
    "look_action",
    "look_page",
    "look_preview",
    "overview",
    "preview_page",
    "publish_action",
    "save_action",
]
