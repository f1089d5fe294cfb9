"""What one catalog change changed, as the audit log says it: `field: old → new`, one clause per
field that differs, nested fields dotted (`discount.percentage: 10 → 15`), secrets as `changed`
(their values never leave the sealed store). Pure."""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from typing import Any

# Field names whose values are secrets wherever they appear.
SECRET_FIELDS = frozenset({"secret", "secret_key", "webhook_secret", "checkout_api_key", "checkout_key_hash"})
# A value longer than this is shown cut (a page's HTML): the entry stays readable.
SHOWN_LIMIT = 60


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A JSON-like document as dotted paths to its leaves (lists are leaves: shown whole)."""
    if isinstance(value, Mapping):
        found: dict[str, Any] = {}
        for name, inner in value.items():
            found |= flatten(inner, f"{prefix}.{name}" if prefix else str(name))
        return found if found or not prefix else {prefix: {}}
    return {prefix: value}


def field_changes(
    old: Mapping[str, Any] | None,
    new: Mapping[str, Any] | None,
    *,
    ignore: Collection[str] = (),
    secrets: Collection[str] = SECRET_FIELDS,
) -> list[str]:
    """`["price: 4.99 → 9.99", "secret: changed"]`, in the order of the fields; empty when the
    two are the same. `old` None: created (every field `→ new`); `new` None: removed."""
    before = flatten(old or {})
    after = flatten(new or {})
    clauses = []
    for path in [*before, *(p for p in after if p not in before)]:
        if path.split(".")[0] in ignore or path in ignore:
            continue
        a, b = before.get(path), after.get(path)
        if a == b:
            continue
        if path.rsplit(".", 1)[-1] in secrets:
            clauses.append(f"{path}: changed")
        else:
            clauses.append(f"{path}: {shown(a)} → {shown(b)}")
    return clauses


def shown(value: Any) -> str:
    """A value as the audit log shows it: strings quoted, nothing as `none`, long ones cut."""
    if value is None:
        return "none"
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= SHOWN_LIMIT else text[: SHOWN_LIMIT - 1] + "…"


def summary(subject: str, clauses: list[str]) -> str:
    """`package 10 "VIP": price: "4.99" → "9.99"; name: …`, or `…: no changes`."""
    return f"{subject}: {'; '.join(clauses) if clauses else 'no changes'}"
