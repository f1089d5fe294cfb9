"""POST /events: the join (and leave) events plugins report in batches.

Bodies differ per client (docs/research/client-facts.md §10): a top-level array of
`{username_id, username?, ip, event_type, event_date}` where `username_id` is a dashed UUID
(official plugin), an undashed one (BuycraftX) or a Steam64 id (C# SDK), and `event_date` is
Java's `Date.toString()`, ISO 8601 or Newtonsoft's ISO. Each request is stored as one compact
item that expires (`EVENTS_KEPT_DAYS`), and each player's latest address is kept for bans.
"""

from __future__ import annotations

import ipaddress
import json
from datetime import datetime
from typing import Any

from webstore import json_body
from webstore.errors import Invalid, PayloadTooLarge
from webstore.operator.auth import ServerIdentity
from webstore.operator.client_times import parse_client_datetime
from webstore.operator.players import is_uuid
from webstore.repo.player_events import LastSeen, PlayerEventRepository
from webstore.services import Services

# The official plugin halves its batch on 413 (it sends 100); BuycraftX sends up to 750 and
# does not retry, so a batch that size must fit.
MAX_EVENTS = 1000
EVENTS_KEPT_DAYS = 30
LAST_SEEN_KEPT_DAYS = 365
EVENT_TYPES = {"server.join": "j", "server.leave": "l"}


def player_refs(username_id: str, username: str) -> list[str]:
    """The keys a player's last address is kept under: by name and by platform id (a UUID
    without dashes, lower case; any other id as sent). Pure."""
    refs = [f"name:{username.lower()}"] if username else []
    if username_id:
        platform_id = username_id.replace("-", "").lower() if is_uuid(username_id) else username_id
        refs.append(f"id:{platform_id}")
    return refs


def _text(event: dict[str, Any], name: str, index: int, *, required: bool, limit: int = 64) -> str:
    value = event.get(name)
    if value is None or value == "":
        if required:
            raise Invalid(f"[{index}].{name} is required", field=f"[{index}].{name}")
        return ""
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise Invalid(f"[{index}].{name} must be a string", field=f"[{index}].{name}")
    text = str(value).strip()
    if len(text) > limit:
        raise Invalid(f"[{index}].{name} is at most {limit} characters", field=f"[{index}].{name}")
    return text


def _address(value: str) -> str:
    """The canonical address, or '' for one that is not an IP (kept out of last-seen)."""
    try:
        return str(ipaddress.ip_address(value.split("%")[0])) if value else ""
    except ValueError:
        return ""


def parse_events(body: bytes, received_at: datetime) -> list[tuple[str, int, str, str, str]]:
    """(type code, epoch, username_id, username, ip) per event. A date this side cannot place
    (a Java date in a named local zone) takes the time it was received. Pure."""
    try:
        parsed = json_body.loads(body or b"null")
    except json.JSONDecodeError as error:
        raise Invalid(f"The body must be a JSON array of events ({error.msg})", field="body") from None
    except ValueError:
        raise Invalid("The body must be a JSON array of events", field="body") from None
    if isinstance(parsed, dict) and isinstance(parsed.get("events"), list):
        parsed = parsed["events"]
    if not isinstance(parsed, list):
        raise Invalid("The body must be a JSON array of events", field="body")
    if len(parsed) > MAX_EVENTS:
        raise PayloadTooLarge(f"At most {MAX_EVENTS} events a request; send fewer at a time")
    events = []
    for index, event in enumerate(parsed):
        if not isinstance(event, dict):
            raise Invalid(f"[{index}] must be an object", field=f"[{index}]")
        kind = _text(event, "event_type", index, required=True)
        if kind not in EVENT_TYPES:
            raise Invalid(
                f"[{index}].event_type must be server.join or server.leave", field=f"[{index}].event_type"
            )
        date_text = _text(event, "event_date", index, required=False, limit=64)
        when = parse_client_datetime(date_text) if date_text else None
        if date_text and when is None and not date_text[:1].isalpha():
            raise Invalid(f"[{index}].event_date is not a date", field=f"[{index}].event_date")
        events.append(
            (
                EVENT_TYPES[kind],
                int((when or received_at).timestamp()),
                _text(event, "username_id", index, required=True),
                _text(event, "username", index, required=False),
                _address(_text(event, "ip", index, required=False)),
            )
        )
    return events


def record_events(services: Services, who: ServerIdentity, body: bytes) -> None:
    now = services.now()
    events = parse_events(body, now)
    if not events:
        return
    received = int(now.timestamp())
    last_seen: dict[str, LastSeen] = {}
    for kind, at, username_id, username, ip in events:
        if kind == "j" and ip:
            for ref in player_refs(username_id, username):
                if ref not in last_seen or last_seen[ref].at <= at:
                    last_seen[ref] = LastSeen(ip, at)
    PlayerEventRepository(services.table).record(
        who.account_id,
        who.server_id,
        received,
        json.dumps(events, separators=(",", ":"), ensure_ascii=False),
        len(events),
        last_seen,
        events_expire_at=received + EVENTS_KEPT_DAYS * 86_400,
        seen_expire_at=received + LAST_SEEN_KEPT_DAYS * 86_400,
    )


def last_seen_ref(player: str) -> str | None:
    """The key a ban's player reference (UUID or username) finds the last address under."""
    refs = player_refs(player, "") if is_uuid(player) else player_refs("", player)
    return refs[0] if refs else None
