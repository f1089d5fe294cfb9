"""The webhook wire format receivers already parse (COMPAT.md "Webhooks"). Pure: no I/O.

A delivery is the JSON envelope `{id, type, date, subject}` POSTed with `X-Signature`: the hex
HMAC-SHA256, keyed with the endpoint's secret, of the hex SHA-256 digest of the raw body. The two
steps matter: existing receivers compute exactly that, so a plain HMAC of the body would not verify.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid
from datetime import datetime
from typing import Any

from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.webhooks import canonical_json

SIGNATURE_HEADER = "X-Signature"


def envelope(event: DomainEvent) -> dict[str, Any]:
    """The body a receiver gets; `id` is the domain event's id, so it is stable across retries."""
    return {"id": event.id, "type": event.type, "date": event.date, "subject": event.subject}


def validation_envelope(now: datetime) -> dict[str, Any]:
    """The handshake a new endpoint must answer with 200 and `{"id": <this id>}`."""
    return {
        "id": str(uuid.uuid4()),
        "type": EventType.VALIDATION,
        "date": now.isoformat(timespec="seconds"),
        "subject": {},
    }


def encode_body(body: dict[str, Any]) -> bytes:
    """The exact bytes that are signed and sent (the signature covers these bytes, not the dict),
    in the canonical form JavaScript writes (`canonical_json`): receivers that verify by
    re-serialising the parsed body (the official Node SDK) compute these same bytes. Numbers
    from DynamoDB (Decimal) go out as JSON numbers, datetimes as ISO strings."""
    return canonical_json.dumps(body).encode()


def signature(secret: str, raw_body: bytes) -> str:
    """COMPAT: hex HMAC-SHA256(secret, hex SHA-256(raw body))."""
    digest = hashlib.sha256(raw_body).hexdigest()
    return hmac.new(secret.encode(), digest.encode(), hashlib.sha256).hexdigest()


def verify(secret: str, raw_body: bytes, header_value: str) -> bool:
    """What a receiver does; used by our tests and documented for integrators."""
    return hmac.compare_digest(signature(secret, raw_body), header_value or "")


def echo_matches(response_body: bytes, expected_id: str) -> bool:
    """Whether a validation response is the JSON object `{"id": <expected id>}` (extra keys allowed)."""
    try:
        answer = json.loads(response_body)
    except (ValueError, UnicodeDecodeError):
        return False
    return isinstance(answer, dict) and answer.get("id") == expected_id


def subscribes(events: list[str], event_type: str) -> bool:
    """An endpoint's filter: an empty list means every type."""
    return not events or event_type in events
