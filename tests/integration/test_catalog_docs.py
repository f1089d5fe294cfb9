"""Issue 15 item 7: docs/catalog.md's examples import (so they cannot rot) and its field tables
are the models' (regenerate with `python -m infra.catalog_docs`)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from infra.catalog_docs import DOC, with_tables
from webstore.catalog_file import check_catalog
from webstore.catalog_import import import_catalog
from webstore.db import Table
from webstore.secret_box import SecretBox

EXAMPLES = [json.loads(block) for block in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.DOTALL)]
BASE = next(e for e in EXAMPLES if "packages" in e and "servers" in e)


def test_the_field_tables_are_the_models() -> None:
    document = DOC.read_text()
    assert with_tables(document) == document, "stale: run `python -m infra.catalog_docs`"


def test_there_are_examples_for_each_kind_of_entity() -> None:
    sections = {key for example in EXAMPLES for key in example}
    assert {"store", "servers", "categories", "packages", "sales", "coupons", "gift_cards"} <= sections
    assert {"creator_codes", "pages", "community_goals", "webhooks", "$schema"} <= sections


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"example-{n}" for n in range(len(EXAMPLES))])
def test_each_example_imports(table: Table, example: dict[str, Any]) -> None:
    """An example adds to the minimal store (its sections replace the minimal one's)."""
    catalog = check_catalog({**BASE, **example}, source="docs/catalog.md")
    result = import_catalog(table, catalog, box=SecretBox(lambda: "k" * 64))
    assert result.account_id == catalog.store.id
