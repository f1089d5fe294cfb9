"""The table layer as use cases see it: the repositories (this package's modules) and the few
names of `webstore.db` a use case may hold: a transaction to hand to repositories and commit,
the errors its conditions raise (`Contention`: read again and retry), a read issued beside
another, stored JSON values as plain JSON again, and the table itself (`Table`, `Item`: what the
composition root, webstore.services, builds and hands to repositories; a use case calls no
method on it, tests/unit/test_boundaries.py). Use cases import these from here; `webstore.db`
itself is the repositories' (lint-imports keeps it so, see pyproject.toml)."""

from webstore.db import ConditionFailed, Contention, Item, Table, Transaction, plain_json, start_read

__all__ = ["ConditionFailed", "Contention", "Item", "Table", "Transaction", "plain_json", "start_read"]
