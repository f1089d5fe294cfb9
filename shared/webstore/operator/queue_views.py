"""Domain → wire for the command queue (`queue_schemas`), apart from `views` for the same reason."""

from __future__ import annotations

from webstore.operator import queue_schemas
from webstore.repo.queue import QueuedCommand


def plugin_uuid(value: str | None) -> str | None:
    """A player UUID as the plugins parse it: 32 lowercase hex digits, no dashes (BuycraftX
    accepts nothing else); None when there is none or it is not a UUID."""
    digits = (value or "").replace("-", "").lower()
    return digits if len(digits) == 32 and all(c in "0123456789abcdef" for c in digits) else None


def command_view(command: QueuedCommand) -> queue_schemas.Command:
    return queue_schemas.Command(
        id=command.id,
        command=command.command,
        payment=command.payment_id or 0,
        package=command.package_id,
        conditions=queue_schemas.CommandConditions(delay=command.delay, slots=command.slots),
        player=queue_schemas.CommandPlayer(
            id=command.username_id, name=command.username, uuid=plugin_uuid(command.uuid)
        ),
    )
