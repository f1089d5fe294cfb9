"""Domain → wire for the command queue (`queue_schemas`), apart from `views` for the same reason."""

from __future__ import annotations

from webstore.identity.steam import STEAM64
from webstore.operator import queue_schemas
from webstore.repo.queue import QueuedCommand


def plugin_uuid(value: str | None) -> str | None:
    """A player UUID as the plugins parse it: 32 lowercase hex digits, no dashes (BuycraftX
    accepts nothing else); None when there is none or it is not a UUID."""
    digits = (value or "").replace("-", "").lower()
    return digits if len(digits) == 32 and all(c in "0123456789abcdef" for c in digits) else None


def queue_player_id(value: str | None) -> str | None:
    """The queue's `player.uuid`: a Minecraft UUID as `plugin_uuid`, a Steam64 id (a Steam
    store's player) as its 17 digits, which is what the plugins for Steam games parse."""
    return plugin_uuid(value) or (value if value and STEAM64.match(value) else None)


def command_view(command: QueuedCommand) -> queue_schemas.Command:
    return queue_schemas.Command(
        id=command.id,
        command=command.command,
        payment=command.payment_id or 0,
        package=command.package_id,
        conditions=queue_schemas.CommandConditions(delay=command.delay, slots=command.slots),
        player=queue_schemas.CommandPlayer(
            id=command.username_id, name=command.username, uuid=queue_player_id(command.uuid)
        ),
    )
