"""Discord interactions (the `/link` slash command), the part that needs no HTTP: the request's
Ed25519 signature checked with the application's public key, and the answer.

Discord signs each interaction: `X-Signature-Ed25519` (hex) over `X-Signature-Timestamp` + the
raw body, with the key on the application's General Information page (kept as `public_key` by
panel → Discord). A request that does not verify is refused (Discord expects 401 and checks that
an endpoint refuses bad signatures before it accepts the URL). PING (type 1) is answered PONG;
`/link` (an application command, type 2) with an ephemeral message (flags 64) carrying the link
URL, at once: nothing is read from Discord, well inside its three seconds.

`receive` is the endpoint's use case (functions/storefront/discord_interactions.py,
`POST /discord/interactions/{token}`, the store named by its public token): one GetItem of the
store and one of its application, the signature checked, the answer built.
"""

from __future__ import annotations

import json
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from webstore import keys
from webstore.errors import Invalid, NotFound, Unauthorized
from webstore.repo.discord import DiscordRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.credentials import verified

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


def link_start_url(services: Services, public_token: str) -> str:
    """Where `/link` sends the player: the storefront's link route for the store, which signs
    them in (the hosted auth page) and then sends them to Discord's consent page."""
    return f"{services.settings.storefront_url}/discord/link?store={public_token}"


def receive(services: Services, token: str, signature: str, timestamp: str, body: bytes) -> dict[str, Any]:
    """An interaction for the store `token` names: verified with the application's public key,
    then answered (PING → PONG, `/link` → the link, ephemeral)."""
    account_id = keys.account_of(token)
    store = verified(StoreRepository(services.table).store(account_id), token)
    app = DiscordRepository(services.table).app(account_id)
    if app is None or not app.public_key:
        raise NotFound("This store has not connected a Discord application with its public key")
    verify(app.public_key, signature, timestamp, body)
    try:
        interaction = json.loads(body)
    except ValueError as exc:
        raise Invalid("the body is not JSON", field="body") from exc
    if not isinstance(interaction, dict):
        raise Invalid("the body is not a JSON object", field="body")
    return answer(interaction, link_start_url(services, store.public_token))
