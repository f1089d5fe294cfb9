"""Issue 15 item 11: the docs link only to files that are in the repository, and the docs index
offers a getting-started for each of the three readers."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_relative_links_point_at_files_in_the_repository(doc: Path) -> None:
    links = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", doc.read_text())
    broken = [link for link in links if "://" not in link and not (doc.parent / link).exists()]
    assert not broken


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_no_reference_to_files_outside_the_repository(doc: Path) -> None:
    text = doc.read_text()
    assert "../shared/" not in text and "ARCHITECTURE.md" not in text
    assert not re.search(r"\b(SPEC|COMPAT)\.md\b", text)


def test_the_index_has_a_getting_started_for_each_reader() -> None:
    index = (ROOT / "docs" / "README.md").read_text()
    headings = re.findall(r"^## (.+)$", index, re.MULTILINE)
    for reader in ("shop developer", "server owner", "plugin user"):
        assert any(reader in heading for heading in headings), reader
