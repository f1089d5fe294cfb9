"""Discord interactions (the `/link` slash command), the part that needs no HTTP: the request's
Ed25519 signature checked with the application's public key, and the answer.

Discord signs each interaction: `X-Signature-Ed25519` (hex) over `X-Signature-Timestamp` + the
raw body, with the key on the application's General Information page (kept as `public_key` by
panel → Discord). A request that does not verify is refused (Discord expects 401 and checks that
an endpoint refuses bad signatures before it accepts the URL). PING (type 1) is answered PONG;
`/link` (an application command, type 2) with an ephemeral message (flags 64) carrying the link
URL, at once: nothing is read from Discord, well inside its three seconds.
"""

from __future__ import annotations

from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from webstore.errors import Invalid, Unauthorized

PING, APPLICATION_COMMAND = 1, 2
PONG, CHANNEL_MESSAGE = 1, 4
EPHEMERAL = 64
LINK_COMMAND = "link"


def verify(public_key_hex: str, signature_hex: str, timestamp: str, body: bytes) -> None:
    """Raises Unauthorized unless `signature_hex` signs `timestamp + body` under the key."""
    try:
        key = Ed25519PublicKey.from_public_bytes(bytes.fromhex(public_key_hex))
        key.verify(bytes.fromhex(signature_hex), timestamp.encode() + body)
    except (ValueError, InvalidSignature) as exc:
        raise Unauthorized("invalid request signature") from exc


def answer(interaction: dict[str, Any], link_url: str) -> dict[str, Any]:
    """The response body for a verified interaction."""
    kind = interaction.get("type")
    if kind == PING:
        return {"type": PONG}
    if kind == APPLICATION_COMMAND and (interaction.get("data") or {}).get("name") == LINK_COMMAND:
        return {
            "type": CHANNEL_MESSAGE,
            "data": {
                "content": f"Link your Discord account to the store here: {link_url}",
                "flags": EPHEMERAL,
            },
        }
    raise Invalid("unsupported interaction", field="type")
