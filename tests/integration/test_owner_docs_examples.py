"""Issue 15 item 11: the catalog snippets of the server owners' docs (a subscription package, Stripe
keys, a webhook endpoint) import, added to docs/catalog.md's minimal store, so they cannot rot."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from infra.catalog_docs import DOC
from webstore.catalog_file import check_catalog
from webstore.catalog_import import import_catalog
from webstore.db import Table
from webstore.secret_box import SecretBox

DOCS = Path(DOC).parent
BASE = next(
    example
    for example in (json.loads(b) for b in re.findall(r"```json\n(.*?)```", DOC.read_text(), re.DOTALL))
    if "packages" in example and "servers" in example
)


def _is_catalog(snippet: str) -> bool:
    """Catalog snippets are sections (`"gateways": {…}`) or a package; the rest show wire bodies."""
    return snippet.lstrip().startswith('"') or '"expiry_length"' in snippet


def _as_catalog_sections(snippet: str) -> dict[str, Any]:
    text = snippet.strip()
    if text.startswith('"'):
        return dict(json.loads("{" + text + "}"))
    return {"packages": [json.loads(text)]}


SNIPPETS = [
    (name, block)
    for name in ("subscriptions.md", "stripe.md", "webhooks.md")
    for block in re.findall(r"```json\n(.*?)```", (DOCS / name).read_text(), re.DOTALL)
    if _is_catalog(block)
]


@pytest.mark.parametrize("snippet", [block for _, block in SNIPPETS], ids=[name for name, _ in SNIPPETS])
def test_each_snippet_imports_into_the_minimal_store(table: Table, snippet: str) -> None:
    sections = _as_catalog_sections(snippet)
    if "gateways" in sections:  # the doc shows the keys' shape; a real import needs real-looking keys
        sections = json.loads(json.dumps(sections, ensure_ascii=False).replace("…", "0123456789abcdef"))
    catalog = check_catalog({**BASE, **sections}, source="docs")
    result = import_catalog(table, catalog, box=SecretBox(lambda: "k" * 64))
    assert result.account_id == catalog.store.id


def test_every_owner_doc_has_its_snippet() -> None:
    assert {name for name, _ in SNIPPETS} == {"subscriptions.md", "stripe.md", "webhooks.md"}
