"""Checks of what callers send that a body's types cannot say: each refusal is a 422 naming
the field (Invalid), before anything is read or written."""

from __future__ import annotations

import ipaddress
import json
import re
from decimal import Decimal
from typing import Any

from webstore import keys
from webstore.errors import Invalid
from webstore.usernames import check_username

MAX_CUSTOM_BYTES = 8 * 1024
MAX_CUSTOM_DEPTH = 8
MAX_EMAIL = 254  # RFC 5321's path limit; createBasket's schema says the same
_EMAIL = re.compile(r"^[^@\s]{1,64}@[^@\s]+\.[^@\s]+$")


def check_email(email: str) -> str | None:
    email = email.strip()
    if not email:
        return None
    if len(email) > MAX_EMAIL:
        raise Invalid(f"email is longer than {MAX_EMAIL} characters", field="email")
    if not _EMAIL.match(email):
        raise Invalid("email is not an email address", field="email")
    return email


def check_ip(ip: str) -> str:
    try:
        return str(ipaddress.ip_address(ip.strip()))
    except ValueError:
        raise Invalid("ip_address is not an IP address", field="ip_address") from None


def check_custom(custom: dict[str, Any]) -> dict[str, Any]:
    """Caller data rides in the basket item and every webhook: small, JSON, storable."""
    size = len(json.dumps(custom, separators=(",", ":"), ensure_ascii=False).encode())
    if size > MAX_CUSTOM_BYTES:
        raise Invalid(
            f"custom is {size} bytes serialized; at most {MAX_CUSTOM_BYTES} allowed", field="custom"
        )
    _check_json(custom, 1)
    return custom


def _check_json(value: Any, depth: int) -> None:
    if depth > MAX_CUSTOM_DEPTH:
        raise Invalid(f"custom nests deeper than {MAX_CUSTOM_DEPTH} levels", field="custom")
    if isinstance(value, dict):
        for item in value.values():
            _check_json(item, depth + 1)
    elif isinstance(value, list):
        for item in value:
            _check_json(item, depth + 1)
    elif isinstance(value, float | int) and not isinstance(value, bool):
        number = Decimal(str(value))
        if not number.is_finite() or (number != 0 and not -130 < number.adjusted() < 126):
            raise Invalid("custom holds a number out of range", field="custom")
        if len(number.as_tuple().digits) > 38:
            raise Invalid("custom holds a number with more than 38 digits", field="custom")


_PLATFORM_UUID = re.compile(
    r"^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)
_STEAM64 = re.compile(r"^\d{17,20}$")


def recipient_platform_id(value: int | str | None) -> str | None:
    """The platform id a gift names (a Minecraft UUID with or without dashes, dashed and lower
    case; a Steam64 id as digits), or None when it names a player by username. Pure."""
    text = "" if value is None else str(value).strip()
    if _PLATFORM_UUID.match(text):
        digits = text.replace("-", "").lower()
        return f"{digits[:8]}-{digits[8:12]}-{digits[12:16]}-{digits[16:20]}-{digits[20:]}"
    if _STEAM64.match(text):
        return text
    return None


def recipient_player_id(value: int | str | None) -> int | None:
    """The numeric player id a gift may name (the `gift_username_id` the basket answers, as a
    number or its digits), or None. Pure."""
    text = "" if value is None or isinstance(value, bool) else str(value).strip()
    if text.isascii() and text.isdigit() and len(text) <= 10 and 1 <= int(text) <= keys.INT32_MAX:
        return int(text)
    return None


def recipient_name(value: int | str | None) -> str | None:
    """A gift recipient named by username (platform ids are resolved by the use case first)."""
    if value is None or str(value).strip() == "":
        return None
    return check_username(str(value), field="target_username_id")
