"""Parsing id lists sent by plugins: JSON `{"ids": [...]}` or form `ids[]=1&ids[]=2`."""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import parse_qsl

from webstore import json_body, keys
from webstore.errors import Invalid
from webstore.validation import ascii_int

MAX_IDS = 500


def parse_command_ids(body: bytes, content_type: str, query: str = "") -> list[int]:
    """The ids of a DELETE /queue: the body's (JSON `ids` or form `ids[]`), or, with no body,
    the query string's `ids[]=1&ids[]=2` (clients that send DELETE without a body put them
    there). Invalid (naming `ids`) for anything else."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        text, content_type = query, "application/x-www-form-urlencoded"
    if not text:
        raise Invalid("ids is required: a list of command ids", field="ids")
    raw: Any
    if "json" in content_type or text.lstrip("\ufeff").startswith("{"):
        try:
            parsed = json_body.loads(body)
        except (ValueError, RecursionError) as error:  # RecursionError: arrays nested ~1000 deep
            reason = f" ({error.msg})" if isinstance(error, json.JSONDecodeError) else ""
            raise Invalid(
                f'The body is not valid JSON{reason}; send {{"ids": [...]}}', field="ids"
            ) from error
        raw = parsed.get("ids") if isinstance(parsed, dict) else None
    else:
        raw = [value for name, value in parse_qsl(text) if name in ("ids[]", "ids")]
        if len(raw) == 1 and "," in raw[0]:
            raw = raw[0].split(",")
    if not isinstance(raw, list) or not raw:
        raise Invalid("ids is required: a list of command ids", field="ids")
    if len(raw) > MAX_IDS:
        raise Invalid(f"ids holds at most {MAX_IDS} command ids", field="ids")
    ids = []
    for value in raw:
        number = _as_int(value)
        if number is None or not 1 <= number <= keys.INT32_MAX:
            raise Invalid(f"ids: {_shown(value)} is not a command id", field="ids")
        ids.append(number)
    return ids


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return ascii_int(value, low=0)
    return None


def _shown(value: Any) -> str:
    """The offending value for the message, cut short (a 5,000-digit number stays readable)."""
    text = json.dumps(value) if isinstance(value, int | str) and not isinstance(value, bool) else "value"
    return text if len(text) <= 24 else text[:20] + "..."
