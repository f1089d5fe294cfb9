"""Rules for values that come from callers, as pydantic types the request schemas apply.

- `CallerMap` (or `CALLER_MAP` on a typed dict): a map a caller sends (basket `custom`, a
  dynamic package's `custom`, ...). Keys must not be empty, and no key or string anywhere in it
  may hold a lone UTF-16 surrogate (`"\\ud800"` in JSON): such a string cannot be stored (UTF-8)
  and would break every later read of the record.
- `CommandText`, `COMMAND_MAP`: values that can end up in the text of a game-server command
  (`variable_data`, manual payment `options`, usernames). Control characters (C0, DEL, C1) and
  lone surrogates are refused: a newline in `"hi\\nop Mallory"` may run a second command,
  depending on the plugin (docs/decisions.md).
- `PathRef`: a path parameter that is an id (or an id-or-slug). Only ASCII digits count as
  digits: Python's `int()` reads `"¹"`, `"①"` and `"٣"` too, which the id checks downstream
  (`str.isdigit()` then `int()`) turn into a 500 or a lookup of another id.
- `ascii_int`: the same rule for ids parsed by hand (form-encoded bodies).
- `MONEY_INPUT` (on a Decimal field): a JSON number, or a plain decimal string (`"3.25"`); not a
  boolean, not padded (`" 1 "`), no exponent or other spellings pydantic would read as numbers.

Each refusal is a ValueError inside validation, so it answers 422 naming the field.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator

INT32_MAX = 2**31 - 1
MAX_ID_DIGITS = 10
# The most of one package a basket line holds (a caller's `quantity`; `webstore.basket` keeps it).
MAX_QUANTITY = 1000
_ASCII_DIGITS = re.compile(r"[0-9]+", re.ASCII)
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_PLAIN_DECIMAL = re.compile(r"-?[0-9]+(\.[0-9]+)?", re.ASCII)


def ascii_int(text: str, *, low: int = 1, high: int = INT32_MAX) -> int | None:
    """`text` as an int when it is ASCII digits only and within [low, high]; else None."""
    text = text.strip()
    if len(text) > MAX_ID_DIGITS or not _ASCII_DIGITS.fullmatch(text):
        return None
    number = int(text)
    return number if low <= number <= high else None


def refuse_unicode_digits(value: str) -> str:
    if any(ch.isdigit() and not ("0" <= ch <= "9") for ch in value):
        raise ValueError("only the ASCII digits 0-9 are accepted in ids")
    return value


def refuse_lone_surrogates(value: str) -> str:
    if _SURROGATE.search(value):
        raise ValueError("contains a lone UTF-16 surrogate, which is not valid text")
    return value


def refuse_control_characters(value: str) -> str:
    """For text that can reach a game-server command: no line breaks, NUL, DEL or C1 codes."""
    refuse_lone_surrogates(value)
    found = _CONTROL.search(value)
    if found:
        raise ValueError(
            f"contains the control character U+{ord(found.group()):04X}; control characters "
            "(line breaks, tabs, NUL ...) are not allowed in values that can reach a command"
        )
    return value


def money_input(value: Any) -> Any:
    """What may stand for an amount: a JSON number or a plain decimal string, nothing looser."""
    if isinstance(value, bool):
        raise ValueError("must be a number, not a boolean")
    if isinstance(value, str) and not _PLAIN_DECIMAL.fullmatch(value):
        raise ValueError('must be a number or a plain decimal string such as "4.99"')
    return value


def _check_key(key: Any) -> None:
    if not isinstance(key, str):
        return
    if key == "":
        raise ValueError("keys must not be empty")
    refuse_lone_surrogates(key)


def check_caller_map(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """Every key non-empty, no lone surrogate in any key or string, at any depth."""
    stack: list[Any] = [value]
    while stack:
        current = stack.pop()
        if isinstance(current, Mapping):
            for key, item in current.items():
                _check_key(key)
                stack.append(item)
        elif isinstance(current, list | tuple):
            stack.extend(current)
        elif isinstance(current, str):
            refuse_lone_surrogates(current)
    return value


def check_command_map(value: Mapping[str, Any]) -> Mapping[str, Any]:
    """A flat map whose keys and string values may reach a command."""
    for key, item in value.items():
        _check_key(key)
        refuse_control_characters(key)
        if isinstance(item, str):
            refuse_control_characters(item)
    return value


CALLER_MAP = AfterValidator(check_caller_map)
MONEY_INPUT = BeforeValidator(money_input)
COMMAND_MAP = AfterValidator(check_command_map)
CallerMap = Annotated[dict[str, Any], CALLER_MAP]
CallerText = Annotated[str, AfterValidator(refuse_lone_surrogates)]
CommandText = Annotated[str, AfterValidator(refuse_control_characters)]
PathRef = Annotated[str, AfterValidator(refuse_unicode_digits)]
