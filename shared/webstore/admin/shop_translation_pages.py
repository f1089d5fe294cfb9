"""Panel → Shop → Translations (docs/shop.md, "Translation files"): each language's JSON file
of the owner's own wording, listed; one opened in an editor, checked on save (bad JSON, an
unknown text or placeholder: refused naming its line or key, what was typed shown again,
nothing stored). The use cases are webstore.shop.translations'."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin.flow import PanelPage
from webstore.errors import Invalid
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import Services
from webstore.shop import translations

SECTION = "shop"
PATH = "/shop/translations"


def href(code: str, done: str = "") -> str:
    return f"{PATH}?{urlencode({'lang': code} | ({'done': done} if done else {}))}"


def page(
    services: Services,
    account_id: int,
    code: str = "",
    *,
    csrf: Callable[[], str | None],
    typed: Mapping[str, str] | None = None,
    error: str = "",
    status: int = 200,
) -> PanelPage:
    """Every language (its file's size, its version), and the one asked for in the editor: what
    was typed after a refusal, else the served file (an example when there is none)."""
    repository = ShopThemeRepository(services.table)
    versions = start_read(repository.versions, account_id, translations.file_name(code)) if code else None
    live = repository.live(account_id)
    rows = [
        {
            "code": c,
            "name": translations.name(c),
            "href": href(c),
            "texts": len(translations.owner_texts(live, c)),
            "version": live.latest.get(translations.file_name(c), 0),
        }
        for c in translations.CODES
    ]
    editing = None
    if code:
        translations.language(code)
        text = typed.get("text", "") if typed is not None else live.translations.get(code, "")
        editing = {
            "code": code,
            "name": translations.name(code),
            "file": translations.file_name(code),
            "text": text,
            "versions": [
                {"version": v.version, "saved_at": f"{v.saved_at:%Y-%m-%d %H:%M} UTC", "actor": v.actor}
                for v in (versions.result() if versions else [])
            ],
        }
    body = fragment(
        "panel/shop/translations.html",
        rows=rows,
        editing=editing,
        csrf=csrf() or "",
        revision=typed.get("revision", str(live.revision)) if typed is not None else live.revision,
        error=error,
    )
    return PanelPage("Translations", body, SECTION, status)


def save_action(
    services: Services, account_id: int, fields: Mapping[str, str], *, actor: str, now: datetime
) -> str:
    code = translations.language(fields.get("lang", ""))
    revision = fields.get("revision", "")
    if not revision.isascii() or not revision.isdigit() or len(revision) > 10:
        raise Invalid("The form lacks the templates' revision; reload the page", field="revision")
    version = translations.save(
        services, account_id, code, fields.get("text", ""), seen_revision=int(revision), actor=actor, now=now
    )
    return href(code, f"Version {version} saved; the shop shows it")


__all__ = ["href", "page", "save_action"]
