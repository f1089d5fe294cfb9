"""Reading a JSON request body, strictly: every interface parses bodies with `loads` (FastAPI's
models through `functions.runtime`, the plugins' parsers in `webstore.operator`).

Refused, naming the problem (docs/decisions.md, "JSON bodies"):
- a byte-order mark (RFC 8259 §8.1: senders must not add one; Python would drop it silently);
- a body that is not UTF-8 (a UTF-16 or UTF-32 body is guessed by Python, not by other servers);
- an object with the same key twice (RFC 8259 §4 leaves the meaning open; Python keeps the last,
  other parsers the first, so the two sides of a proxy could read different requests).
"""

from __future__ import annotations

import json
import re
from typing import Any

BOMS = (b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff")
BOM = "the body starts with a byte-order mark; send UTF-8 without one"


def loads(body: bytes | str) -> Any:
    """The body's JSON value; json.JSONDecodeError (a ValueError) naming what is wrong."""
    if isinstance(body, bytes):
        if body.startswith(BOMS):
            raise json.JSONDecodeError(BOM, "", 0)
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError as error:
            raise json.JSONDecodeError("the body is not UTF-8", "", error.start) from None
    else:
        text = body
    if text.startswith("\ufeff"):
        raise json.JSONDecodeError(BOM, text, 0)

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for key, value in pairs:
            if key in found:
                raise json.JSONDecodeError(
                    f'the key "{key}" appears twice in one object', text, _second(text, key)
                )
            found[key] = value
        return found

    return json.loads(text, object_pairs_hook=unique)


def _second(text: str, key: str) -> int:
    """Where `key` appears the second time as an object key (0 when it cannot be told)."""
    places = [m.start() for m in re.finditer(re.escape(json.dumps(key, ensure_ascii=False)) + r"\s*:", text)]
    return places[1] if len(places) > 1 else 0
