"""Ids taken inside the write's own transaction (webstore.repo.sequences), against moto."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future

import pytest

from webstore import keys
from webstore.db import Table, Transaction
from webstore.errors import Conflict
from webstore.repo.account import AccountRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository

A = 1


Build = Callable[[IdAllocation], tuple[Transaction, list[int]]]


def marker_write(table: Table, taken: list[list[int]], sequence: str = "ban", count: int = 1) -> Build:
    """A build that takes `count` ids and writes one item per id (absent), noting each attempt."""

    def build(ids: IdAllocation) -> tuple[Transaction, list[int]]:
        new = ids.take(sequence, count)
        taken.append(new)
        tx = Transaction(table)
        for i in new:
            tx.put(
                {"PK": f"MARK#{sequence}", "SK": str(i)},
                condition="attribute_not_exists(PK)",
                fails=Conflict("mark taken"),
            )
        return tx, new

    return build


def ready(allocation: IdAllocation) -> Future[IdAllocation]:
    future: Future[IdAllocation] = Future()
    future.set_result(allocation)
    return future


def test_ids_follow_the_read_and_the_transaction_sets_every_sequence_taken(table: Table) -> None:
    sequences = SequenceRepository(table)
    AccountRepository(table).raise_sequence(A, "command", 41)  # an import's ids

    def build(ids: IdAllocation) -> tuple[Transaction, tuple[list[int], list[int], list[int]]]:
        taken = (ids.take("payment"), ids.take("command", 3), ids.take("command"))
        ids.add("coupon_count", 2)
        return Transaction(table), taken

    assert sequences.write(A, build) == ([1], [42, 43, 44], [45])
    after = sequences.read(A)
    assert (after.last("payment"), after.last("command"), after.last("tier")) == (1, 45, 0)
    assert AccountRepository(table).coupon_count(A) == 2


def test_a_write_that_takes_nothing_leaves_the_sequences_alone(table: Table) -> None:
    table.put({"PK": "X", "SK": "1"})
    assert SequenceRepository(table).write(A, lambda ids: (Transaction(table), "done")) == "done"
    assert table.get(SequenceRepository.key(A)) is None


def test_two_writers_racing_get_distinct_ids_and_the_loser_reads_again(table: Table) -> None:
    sequences = SequenceRepository(table)
    stale = sequences.read(A)  # read by the loser before the winner commits
    winner: list[list[int]] = []
    loser: list[list[int]] = []
    assert sequences.write(A, marker_write(table, winner)) == [1]
    assert sequences.write(A, marker_write(table, loser), first_read=ready(stale)) == [2]
    # built on the stale read (its mark taken too, but the stale id is what failed), then afresh
    assert loser == [[1], [2]]
    assert sequences.read(A).last("ban") == 2


def test_a_labelled_failure_propagates_and_spends_no_id(table: Table) -> None:
    sequences = SequenceRepository(table)
    table.put({"PK": "TAKEN", "SK": "x"})

    def build(ids: IdAllocation) -> tuple[Transaction, int]:
        tx = Transaction(table)
        tx.put({"PK": "TAKEN", "SK": "x"}, condition="attribute_not_exists(PK)", fails=Conflict("taken"))
        return tx, ids.take("ban")[0]

    with pytest.raises(Conflict, match="taken"):
        sequences.write(A, build)
    assert sequences.read(A).last("ban") == 0


def test_a_writer_that_always_loses_gives_up_with_a_conflict(table: Table) -> None:
    sequences = SequenceRepository(table)
    attempts: list[list[int]] = []

    def build(ids: IdAllocation) -> tuple[Transaction, list[int]]:
        table.update(sequences.key(A), "ADD ban :one", values={":one": 1})  # someone else, every time
        return marker_write(table, attempts)(ids)

    with pytest.raises(Conflict, match="busy"):
        sequences.write(A, build)
    assert len(attempts) > 1


def test_ids_stop_at_32_bits(table: Table) -> None:
    AccountRepository(table).raise_sequence(A, "coupon", keys.INT32_MAX - 1)
    ids = SequenceRepository(table).read(A)
    assert ids.take("coupon") == [keys.INT32_MAX]
    with pytest.raises(Conflict, match="coupon id space of this account is exhausted"):
        ids.take("coupon")


def test_raising_a_sequence_never_lowers_it(table: Table) -> None:
    accounts = AccountRepository(table)
    accounts.raise_sequence(A, "ban", 10)
    accounts.raise_sequence(A, "ban", 5)  # the condition fails quietly
    assert SequenceRepository(table).read(A).take("ban") == [11]
