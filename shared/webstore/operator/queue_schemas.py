"""The command queue's shapes (SPEC.md, COMPAT.md): what plugins poll for and run.

Apart from `schemas` so that the queue's functions, the plugins' most frequent calls, do not
import the interface's every shape, nor the catalog models those need (the cold start).
"""

from __future__ import annotations

from typing import Any

from webstore.operator.wire import Wire


class QueueMeta(Wire):
    execute_offline: bool
    next_check: int
    more: bool


class DuePlayer(Wire):
    id: int
    name: str
    uuid: str | None


class DuePlayers(Wire):
    meta: QueueMeta
    players: list[DuePlayer]


class CommandConditions(Wire):
    delay: int
    slots: int


class CommandPlayer(Wire):
    id: int
    name: str
    uuid: str | None


class Command(Wire):
    id: int
    command: str
    payment: int  # 0 for a manual command: CS reads a non-nullable long
    package: int | None
    conditions: CommandConditions
    player: CommandPlayer


class OfflineMeta(Wire):
    limited: bool


class OfflineCommands(Wire):
    meta: OfflineMeta
    commands: list[Command]


class OnlinePlayer(Wire):
    id: int
    username: str | None
    meta: dict[str, Any] | None = None


class OnlineCommands(Wire):
    player: OnlinePlayer
    commands: list[Command]
