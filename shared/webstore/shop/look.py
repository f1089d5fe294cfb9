"""The shop's look without code (docs/shop.md, "Look"): logo, favicon, colours, the hero's text,
the sale banner's text and the package layout, set in panel → Shop → Look and kept in the live
theme's item (`ShopTheme.look`): every shop page reads it in its one round trip. Saved like a
template: on condition of the revision the form read, with its audit entry, one transaction."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime

from webstore.catalog import Store
from webstore.errors import Invalid
from webstore.repo.audit_log import Audit
from webstore.repo.shop_theme import STALE, ShopLook, ShopThemeRepository
from webstore.services import Services
from webstore.shop.maintenance import parse_allow_list, parse_message

COLOR = re.compile(r"^#[0-9a-fA-F]{6}$")
URL = re.compile(r"^https?://[^\s<>\"']+$")
MAX_URL = 2000
MAX_TEXT = 300
LAYOUTS = ("", "grid", "list")
LABELS = {
    "logo": "Logo",
    "favicon": "Favicon",
    "primary_color": "Brand colour",
    "accent_color": "Accent colour",
    "hero_text": "Hero text",
    "sale_banner": "Sale banner",
    "package_layout": "Package layout",
    "header_style": "Header style",
    "after_add": "After adding to the basket",
    "guest_prices": "Prices for guests",
    "maintenance": "Maintenance mode",
    "maintenance_message": "Maintenance message",
    "maintenance_allow": "Allowed during maintenance",
}
AFTER_ADD = ("", "package")
GUEST_PRICES = ("", "hidden")
HEADER_STYLES = ("", "compact", "centered")


def parse_look(fields: Mapping[str, str]) -> ShopLook:
    """The form's look, or Invalid naming the field and what it should be."""
    values = {name: (fields.get(name) or "").strip() for name in LABELS}
    for name in ("logo", "favicon"):
        value = values[name]
        if value and (len(value) > MAX_URL or not URL.match(value)):
            raise Invalid(f"{LABELS[name]}: an http(s) address of at most {MAX_URL} characters", field=name)
    for name in ("primary_color", "accent_color"):
        if values[name] and not COLOR.match(values[name]):
            raise Invalid(f"{LABELS[name]}: a colour as #rrggbb (e.g. #1a5fb4)", field=name)
        values[name] = values[name].lower()
    for name in ("hero_text", "sale_banner"):
        if len(values[name]) > MAX_TEXT or any(ord(c) < 32 for c in values[name]):
            raise Invalid(f"{LABELS[name]}: one line of at most {MAX_TEXT} characters", field=name)
    if values["package_layout"] not in LAYOUTS:
        raise Invalid("Package layout: each category's own, grid or list", field="package_layout")
    if values["header_style"] not in HEADER_STYLES:
        raise Invalid("Header style: banner, compact or centred", field="header_style")
    if values["after_add"] not in AFTER_ADD:
        raise Invalid("After adding to the basket: the basket or the package", field="after_add")
    if values["guest_prices"] not in GUEST_PRICES:
        raise Invalid("Prices for guests: shown or hidden", field="guest_prices")
    if values["maintenance"] not in ("", "on"):
        raise Invalid("Maintenance mode: on or off", field="maintenance")
    values["maintenance_message"] = parse_message(fields.get("maintenance_message") or "")
    _, values["maintenance_allow"] = parse_allow_list(values["maintenance_allow"])
    return ShopLook(**values)


def save_look(
    services: Services,
    account_id: int,
    fields: Mapping[str, str],
    *,
    seen_revision: int,
    actor: str,
    now: datetime,
) -> ShopLook:
    """Store the form's look as the shop's (Conflict if the theme changed since the form was read)."""
    look = parse_look(fields)
    repository = ShopThemeRepository(services.table)
    live = repository.live(account_id)
    if live.revision != seen_revision:
        raise STALE
    new = live.model_copy(deep=True)
    new.revision, new.changed_at, new.look = live.revision + 1, now, look
    changed = sorted(n for n in LABELS if getattr(live.look, n) != getattr(look, n))
    summary = "look: " + (", ".join(LABELS[n].lower() for n in changed) or "saved unchanged")
    repository.change(account_id, live, new, [], Audit(actor, "shop.look.save", summary, now))
    return look


def branded(store: Store, look: ShopLook) -> Store:
    """The store as the shop shows it: the look's logo and colours over the catalog's."""
    update = {n: getattr(look, n) for n in ("logo", "primary_color", "accent_color") if getattr(look, n)}
    return store.model_copy(update=update) if update else store
