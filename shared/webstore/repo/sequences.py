"""Integer ids, taken inside the write's own transaction.

`ACCOUNT#a`/`SEQ` holds the last id handed out of each of the account's sequences (`payment`,
`command`, `tier`, `coupon`, `ban`, `giftcard`, …; ids stay dense and within 32 bits) and the
coupon count. A write reads the item with its other reads, takes the ids it needs from what it
read (`IdAllocation.take`), and its transaction carries one Update of `SEQ` that sets each
sequence taken to its new last id on condition that it still holds what was read. Two writers
racing for a sequence: one commits, the other's transaction fails without a label
(`Contention`) and `SequenceRepository.write` reads again and retries (the one retry policy,
webstore.contention). So a write that makes
ids costs one read and one transaction, and the ids of a transaction that failed are never
spent (no gaps from refused writes).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from concurrent.futures import Future
from decimal import Decimal
from typing import TypeVar

from webstore import contention, keys
from webstore.db import Contention, Item, Table, Transaction
from webstore.errors import Conflict

R = TypeVar("R")


class IdAllocation:
    """The sequences as one read saw them, and the ids taken from them for one transaction."""

    def __init__(self, account_id: int, item: Item | None) -> None:
        self.account_id = account_id
        self._read = {name: int(v) for name, v in (item or {}).items() if isinstance(v, int | Decimal)}
        self._taken: dict[str, int] = {}  # sequence → how many ids taken
        self._added: dict[str, int] = {}  # plain counters on the item (coupon_count) → delta

    @classmethod
    def unread(cls, account_id: int) -> IdAllocation:
        """For a write that takes no ids: nothing read, nothing to write (taking one would claim
        a sequence is new, which its condition then refuses as contention)."""
        return cls(account_id, None)

    def last(self, sequence: str) -> int:
        """The last id handed out of `sequence` when it was read (0: none yet)."""
        return self._read.get(sequence, 0)

    def take(self, sequence: str, count: int = 1, *, above: int = 0) -> list[int]:
        """The next `count` ids of `sequence` after those already taken and after `above` (the
        highest id in use that the sequence may not know of: entities a catalog file named before
        the sequence existed); Conflict past 32 bits."""
        if count <= 0:
            return []
        first = max(self.last(sequence) + self._taken.get(sequence, 0), above) + 1
        if first + count - 1 > keys.INT32_MAX:
            raise Conflict(f"The {sequence} id space of this account is exhausted")
        self._taken[sequence] = first + count - 1 - self.last(sequence)
        return list(range(first, first + count))

    def add(self, counter: str, delta: int) -> None:
        """ADD `delta` to a plain counter on the sequences item, in the same action (no condition)."""
        self._added[counter] = self._added.get(counter, 0) + delta

    @property
    def pending(self) -> bool:
        """Ids taken or counters moved: `add_to` has an update to add."""
        return bool(self._taken or self._added)

    def add_to(self, tx: Transaction) -> None:
        """The one Update of `SEQ` this allocation needs (none when nothing was taken or added)."""
        if not self._taken and not self._added:
            return
        sets, adds, conditions = [], [], []
        names: dict[str, str] = {}
        values: dict[str, int] = {}
        for i, (sequence, count) in enumerate(sorted(self._taken.items())):
            names[f"#s{i}"] = sequence
            values[f":s{i}"] = self.last(sequence) + count
            sets.append(f"#s{i} = :s{i}")
            if sequence in self._read:
                values[f":p{i}"] = self.last(sequence)
                conditions.append(f"#s{i} = :p{i}")
            else:
                conditions.append(f"attribute_not_exists(#s{i})")
        for i, (counter, delta) in enumerate(sorted(self._added.items())):
            names[f"#a{i}"] = counter
            values[f":a{i}"] = delta
            adds.append(f"#a{i} :a{i}")
        clauses = ["SET " + ", ".join(sets)] if sets else []
        clauses += ["ADD " + ", ".join(adds)] if adds else []
        tx.update(
            SequenceRepository.key(self.account_id),
            " ".join(clauses),
            condition=" AND ".join(conditions) or None,
            names=names,
            values=values,
            contended=True,  # ids taken from a stale read: whatever else failed, read again
        )


class SequenceRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def key(account_id: int) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM)

    def read(self, account_id: int) -> IdAllocation:
        """The sequences as they are now (one consistent GetItem)."""
        return IdAllocation(account_id, self.table.get(self.key(account_id), consistent=True))

    @staticmethod
    def allocation(account_id: int, found: Mapping[tuple[str, str], Item]) -> IdAllocation:
        """The sequences from a batch read that included `key(account_id)` (by PK, SK)."""
        return IdAllocation(account_id, found.get((keys.account_pk(account_id), keys.SEQUENCES_ITEM)))

    def write(
        self,
        account_id: int,
        build: Callable[[IdAllocation], tuple[Transaction, R]],
        *,
        first_read: Future[IdAllocation] | IdAllocation | None = None,
    ) -> R:
        """Commit the transaction `build` makes from the sequences as read (plus the `SEQ` update
        for the ids it took) and return what it returned; when a concurrent writer took the same
        ids first (`Contention`), read again and build again. `first_read`: the first read,
        already issued beside the caller's other reads (or `IdAllocation.unread` for a write that
        takes no ids this time). A labelled condition's error propagates."""
        for attempt in contention.attempts():
            if attempt == 0 and first_read is not None:
                ids = first_read.result() if isinstance(first_read, Future) else first_read
            else:
                ids = self.read(account_id)
            tx, result = build(ids)
            ids.add_to(tx)
            try:
                tx.commit()
            except Contention:
                continue
            return result
        raise Conflict("The store is busy; nothing was saved, try again")
