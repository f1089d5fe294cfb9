"""What each setting of the shop's look may be (docs/shop.md, "The look without code"): the one
set of rules the panel's Look form, the theme file and the catalog file's `shop.look` check
against. Pure (no reads): the catalog file's model imports it."""

from __future__ import annotations

import re
from collections.abc import Mapping

from webstore.errors import Invalid
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
    "login": "Player log-in",
    "maintenance": "Maintenance mode",
    "maintenance_message": "Maintenance message",
    "maintenance_allow": "Allowed during maintenance",
}
AFTER_ADD = ("", "package")
GUEST_PRICES = ("", "hidden")
LOGINS = ("", "hosted")  # the shop's own log-in page, or the hosted auth page (webstore.shop.forms)
HEADER_STYLES = ("", "compact", "centered")
CHOICES = {
    "package_layout": (LAYOUTS, "each category's own, grid or list"),
    "header_style": (HEADER_STYLES, "banner, compact or centred"),
    "after_add": (AFTER_ADD, "the basket or the package"),
    "guest_prices": (GUEST_PRICES, "shown or hidden"),
    "login": (LOGINS, '"" (the shop\'s own page) or "hosted" (the hosted auth page)'),
    "maintenance": (("", "on"), "on or off"),
}


def check_look_field(name: str, raw: str) -> str:
    """One setting as stored (colours lower case, the allow-list normalized), or Invalid naming it."""
    label = LABELS[name]
    if name == "maintenance_message":
        return parse_message(raw)
    value = raw.strip()
    if name in ("logo", "favicon"):
        if value and (len(value) > MAX_URL or not URL.match(value)):
            raise Invalid(f"{label}: an http(s) address of at most {MAX_URL} characters", field=name)
    elif name in ("primary_color", "accent_color"):
        if value and not COLOR.match(value):
            raise Invalid(f"{label}: a colour as #rrggbb (e.g. #1a5fb4)", field=name)
        value = value.lower()
    elif name in ("hero_text", "sale_banner"):
        if len(value) > MAX_TEXT or any(ord(c) < 32 for c in value):
            raise Invalid(f"{label}: one line of at most {MAX_TEXT} characters", field=name)
    elif name == "maintenance_allow":
        _, value = parse_allow_list(value)
    else:
        allowed, said = CHOICES[name]
        if value not in allowed:
            raise Invalid(f"{label}: {said}", field=name)
    return value


def checked_look(fields: Mapping[str, str]) -> dict[str, str]:
    """Every setting of `fields` checked (a missing one is ""), or Invalid naming the first wrong one."""
    return {name: check_look_field(name, fields.get(name) or "") for name in LABELS}
