"""How many bytes a DynamoDB item takes, computed before writing it, so that every item stays
well inside the table's 400 KB limit and an oversized write is a clear 422 naming what is too
big instead of the table's ValidationException (a 500).

The size follows DynamoDB's documented rules: attribute names and strings count their UTF-8
bytes, numbers about one byte per two significant digits plus one, booleans and nulls one byte,
lists and maps three bytes plus one per element (and their keys' bytes).
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any

from webstore.errors import Invalid

# Our own ceiling: room under DynamoDB's 400 KB item limit for what later writes add (counters, notes).
MAX_ITEM_BYTES = 300 * 1024


def value_size(value: Any) -> int:
    if value is None or isinstance(value, bool):
        return 1
    if isinstance(value, str):
        return len(value.encode("utf-8", "surrogatepass"))
    if isinstance(value, bytes | bytearray):
        return len(value)
    if isinstance(value, int | float | Decimal):
        digits = len(str(value).lstrip("-").replace(".", "").lstrip("0")) or 1
        return 1 + (digits + 1) // 2
    if isinstance(value, Mapping):
        return 3 + sum(value_size(str(k)) + value_size(v) + 1 for k, v in value.items())
    if isinstance(value, list | tuple):
        return 3 + sum(value_size(v) + 1 for v in value)
    if isinstance(value, set | frozenset):
        return sum(value_size(v) for v in value)
    return value_size(str(value))


def item_size(item: Mapping[str, Any]) -> int:
    """Bytes `item` (attribute name → plain value, as `db.to_item` builds it) takes in the table."""
    return sum(value_size(name) + value_size(value) for name, value in item.items())


class ItemTooLarge(Invalid):
    """A write that would make a record larger than we store."""


def check_item_size(item: Mapping[str, Any], *, what: str, field: str, hint: str = "") -> None:
    """ItemTooLarge (422 naming `field`) when `item` is over MAX_ITEM_BYTES."""
    size = item_size(item)
    if size > MAX_ITEM_BYTES:
        raise ItemTooLarge(
            f"{what} would take {size // 1024} KB; at most {MAX_ITEM_BYTES // 1024} KB can be stored"
            + (f": {hint}" if hint else ""),
            field=field,
        )
