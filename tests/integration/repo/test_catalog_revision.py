"""The catalog revision (webstore.repo.definitions): a save claims the revision its form was
read at, once; an import raises it; a stale form is refused before any work."""

from __future__ import annotations

import pytest

from webstore.db import Table
from webstore.errors import Conflict
from webstore.repo.definitions import DefinitionRepository

A = 1


def test_a_revision_is_claimed_once_and_an_import_makes_forms_stale(table: Table) -> None:
    revisions = DefinitionRepository(table)
    assert revisions.revision(A) == 0
    assert revisions.claim_revision(A, 0) == 1
    with pytest.raises(Conflict, match="changed by someone else") as refused:
        revisions.claim_revision(A, 0)  # the second editor of revision 0
    assert refused.value.field == "revision"
    assert revisions.raise_revision(A) == 2
    with pytest.raises(Conflict):
        revisions.claim_revision(A, 1)
    with pytest.raises(Conflict):
        revisions.check_revision(A, 1)
    revisions.check_revision(A, 2)
    assert revisions.claim_revision(A, 2) == 3
    assert DefinitionRepository(table).revision(2) == 0  # each store its own
