"""The panel's first-sign-in setup (webstore.admin.setup_pages): which of its steps the owner
has done or skipped, and whether the setup was finished or skipped as a whole. One small item
in the account partition (`SETUP`); the steps' own writes are the catalog's, the servers' and
the shop look's, each in its own transaction: this item only says where the setup resumes."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from webstore import keys
from webstore.db import Table

_STEP = "step_"


@dataclass(frozen=True)
class SetupProgress:
    """The steps passed (done or skipped: `{step: "done" | "skipped"}`) and how the setup
    ended ("finished", "skipped"; "" while it is open)."""

    steps: dict[str, str]
    closed: str = ""


class SetupRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    def _key(self, account_id: int) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.SETUP_ITEM)

    def progress(self, account_id: int, *, consistent: bool = False) -> SetupProgress:
        """Where the setup stands (one GetItem; nothing stored: not started)."""
        item = self.table.get(self._key(account_id), consistent=consistent) or {}
        steps = {name[len(_STEP) :]: str(value) for name, value in item.items() if name.startswith(_STEP)}
        return SetupProgress(steps, str(item.get("closed", "")))

    def pass_step(self, account_id: int, step: str, outcome: str, now: datetime) -> None:
        """`step` done or skipped (one UpdateItem; passing it again overwrites)."""
        self.table.update(
            self._key(account_id),
            "SET entity = :entity, #step = :outcome, changed_at = :now",
            names={"#step": f"{_STEP}{step}"},
            values={":entity": "setup", ":outcome": outcome, ":now": now.isoformat()},
        )

    def close(self, account_id: int, how: str, now: datetime) -> None:
        """The setup finished or skipped as a whole: sign-in no longer opens it (one UpdateItem)."""
        self.table.update(
            self._key(account_id),
            "SET entity = :entity, closed = :how, changed_at = :now",
            values={":entity": "setup", ":how": how, ":now": now.isoformat()},
        )
