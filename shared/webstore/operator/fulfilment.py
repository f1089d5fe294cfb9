"""Moved: payments live in `webstore.payments` (recording, planning, status, events).

Kept only so `operator/admin.py` (another branch) still imports `player_actions` from here
until it imports `webstore.repo.players` directly; delete this module then.
"""

from webstore.repo.players import player_actions

__all__ = ["player_actions"]
