"""JSON exactly as JavaScript's `JSON.stringify(JSON.parse(text))` writes it. Pure.

Webhook receivers verify the signature either over the raw body or, like the official Node SDK,
over `JSON.stringify(JSON.parse(body))`. A body already in that form verifies both ways. The
rules (ECMAScript, docs/research/client-facts.md §21):

- no whitespace; strings keep non-ASCII as is and escape only `"`, `\\`, U+0000 to U+001F (`\\b \\f
  \\n \\r \\t`, others `\\u00xx` in lower case) and lone surrogates (`\\udxxx`); `/` is not escaped;
- numbers in JavaScript's shortest round-trip form (`1.0` → `1`, `0.50` → `0.5`, `1e21` → `1e+21`,
  `1e-7`; an integer past 2^53 is written as the double it parses to);
- object keys keep their order, except integer-like keys (`"2"`, `"10"`), which JavaScript
  lists first in ascending numeric order.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any

_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_ARRAY_INDEX_MAX = 2**32 - 2
_SAFE_INTEGER = 2**53


def dumps(value: Any) -> str:
    """`value` (dicts, lists, str, int, float, Decimal, bool, None; datetimes as ISO strings)
    as the text JavaScript would write for it."""
    parts: list[str] = []
    _write(value, parts)
    return "".join(parts)


def _write(value: Any, out: list[str]) -> None:
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(js_string(value))
    elif isinstance(value, int):
        out.append(str(value) if abs(value) <= _SAFE_INTEGER else js_number(float(value)))
    elif isinstance(value, float | Decimal):
        out.append(js_number(float(value)))
    elif isinstance(value, datetime):
        out.append(js_string(value.isoformat()))
    elif isinstance(value, Mapping):
        out.append("{")
        for index, key in enumerate(js_key_order([str(k) for k in value])):
            if index:
                out.append(",")
            out.append(js_string(key))
            out.append(":")
            _write(_lookup(value, key), out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for index, item in enumerate(value):
            if index:
                out.append(",")
            _write(item, out)
        out.append("]")
    else:
        raise TypeError(f"not JSON serializable: {type(value).__name__}")


def _lookup(mapping: Mapping[Any, Any], key: str) -> Any:
    return mapping[key] if key in mapping else next(v for k, v in mapping.items() if str(k) == key)


def _is_array_index(key: str) -> bool:
    return key.isdigit() and key.isascii() and (key == "0" or key[0] != "0") and int(key) <= _ARRAY_INDEX_MAX


def js_key_order(keys: list[str]) -> list[str]:
    """Integer-like keys first, ascending; the others in insertion order."""
    indexes = sorted((k for k in keys if _is_array_index(k)), key=int)
    return indexes + [k for k in keys if not _is_array_index(k)]


def js_string(text: str) -> str:
    out = ['"']
    for char in text:
        code = ord(char)
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif code < 0x20 or 0xD800 <= code <= 0xDFFF:
            out.append(f"\\u{code:04x}")  # control characters; lone surrogates (a str has no pairs)
        else:
            out.append(char)
    out.append('"')
    return "".join(out)


def js_number(number: float) -> str:
    """ECMAScript Number::toString over the shortest round-trip digits (which `repr` gives)."""
    if math.isnan(number) or math.isinf(number):
        return "null"  # what JSON.stringify writes for them
    if number == 0:
        return "0"
    sign = "-" if number < 0 else ""
    mantissa, _, exponent = repr(abs(number)).partition("e")
    whole, _, fraction = mantissa.partition(".")
    digits = (whole + fraction).lstrip("0").rstrip("0")
    return sign + _format(digits, _point(whole, fraction, exponent))


def _point(whole: str, fraction: str, exponent: str) -> int:
    """n such that the value is 0.d1d2... * 10^n, from repr's mantissa and exponent."""
    shift = int(exponent) if exponent else 0
    if whole.strip("0"):
        return len(whole.lstrip("0")) + shift
    return shift - (len(fraction) - len(fraction.lstrip("0")))


def _format(digits: str, n: int) -> str:
    k = len(digits)
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return "0." + "0" * (-n) + digits
    power = n - 1
    mark = "+" if power >= 0 else "-"
    head = digits if k == 1 else f"{digits[0]}.{digits[1:]}"
    return f"{head}e{mark}{abs(power)}"
