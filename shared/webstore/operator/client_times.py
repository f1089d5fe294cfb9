"""Dates as the plugin clients write them, read into aware UTC datetimes. Pure.

ISO 8601 in its client variants (`Z`, `+01`, `+0000`, up to 7 fraction digits as Newtonsoft
writes them), `yyyy-mm-dd hh:mm:ss` (the platform's docs), and Java's `Date.toString()` (the
official plugin's join events, e.g. `Mon Nov 23 15:05:03 UTC 2026`). A time without a zone is UTC.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime

_FRACTION = re.compile(r"(\.\d{6})\d+")
_COMPACT_OFFSET = re.compile(r"([+-]\d{2})(\d{2})$")
_JAVA_DATE = re.compile(r"^[A-Z][a-z]{2} ([A-Z][a-z]{2} \d{1,2} \d{2}:\d{2}:\d{2}) (\S+) (\d{4})$")
_UTC_NAMES = {"UTC", "GMT", "Z", "UCT", "ZULU"}


def parse_client_datetime(value: str) -> datetime | None:
    """The instant `value` names, or None when it is not a form above. A Java date in a zone
    other than UTC/GMT is None too: its abbreviation (CST, IST, …) does not name one offset."""
    text = value.strip()
    java = _JAVA_DATE.match(text)
    if java:
        if java.group(2).upper() not in _UTC_NAMES:
            return None
        try:
            return datetime.strptime(f"{java.group(1)} {java.group(3)}", "%b %d %H:%M:%S %Y").replace(
                tzinfo=UTC
            )
        except ValueError:
            return None
    text = _FRACTION.sub(r"\1", text)
    if text.endswith(("Z", "z")):
        text = text[:-1] + "+00:00"
    text = _COMPACT_OFFSET.sub(r"\1:\2", text) if "T" in text or " " in text else text
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        return None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).astimezone(UTC)
