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


FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)


def _outside_code_blocks(text: str) -> str:
    return FENCE.sub("", text)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text as rendered (no markup), lowercased, every
    character but letters, digits, spaces, hyphens and underscores dropped, spaces → hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link reads as its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = re.sub(r"[^\w\- ]", "", text.strip().lower())
    return text.replace(" ", "-")


def anchors(doc: Path) -> set[str]:
    """Every anchor of a document: its headings' slugs (a repeated slug gets -1, -2, … as on
    GitHub) and its explicit `<a id="…">` / `<a name="…">`."""
    text = _outside_code_blocks(doc.read_text())
    found: set[str] = set()
    seen: dict[str, int] = {}
    for heading in re.findall(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", text, re.MULTILINE):
        slug = github_slug(heading)
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    found.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return found


def _anchor_references(doc: Path) -> list[tuple[Path, str]]:
    """(document, anchor) of every Markdown link with an anchor, and of every `docs/x.md#anchor`
    mentioned in the text (the README names sections that way)."""
    text = _outside_code_blocks(doc.read_text())
    references = []
    for target, anchor in re.findall(r"\]\(([^)#\s]*)#([^)\s]+)\)", text):
        if "://" not in target:
            references.append(((doc.parent / target) if target else doc, anchor))
    for target, anchor in re.findall(r"(?<![\w/(.-])((?:docs/)?[\w-]+\.md)#([\w-]+)", text):
        if target.startswith("docs/"):
            references.append((ROOT / target, anchor))
        elif not re.search(rf"\]\({re.escape(target)}#{re.escape(anchor)}\)", text):
            references.append((doc.parent / target, anchor))
    return references


@pytest.mark.parametrize("doc", DOCS, ids=[d.name for d in DOCS])
def test_links_to_a_section_name_a_section_that_exists(doc: Path) -> None:
    missing = [
        f"{target.relative_to(ROOT)}#{anchor}"
        for target, anchor in _anchor_references(doc)
        if target.suffix == ".md" and (not target.exists() or anchor not in anchors(target))
    ]
    assert not missing


def test_slugs_follow_githubs_rules() -> None:
    assert github_slug("Command queue (`webstore/operator/queue.py`, `repo/queue.py`)") == (
        "command-queue-webstoreoperatorqueuepy-repoqueuepy"
    )
    assert github_slug("Requests no route matches (`$default`)") == "requests-no-route-matches-default"
    assert github_slug("Upgrade: PATCH `{headless_url}/tiers/{id}` {package_id}") == (
        "upgrade-patch-headless_urltiersid-package_id"
    )
    assert github_slug("Before you switch: base URLs and the platform's analytics") == (
        "before-you-switch-base-urls-and-the-platforms-analytics"
    )


def test_a_link_to_a_missing_section_is_found(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text('# A\n\n## Known part\n\n<a id="old-name"></a>\n## New name\n')
    doc = tmp_path / "b.md"
    doc.write_text("[ok](a.md#known-part) [kept](a.md#old-name) [gone](a.md#lost-part) [here](#b)\n# B\n")
    references = _anchor_references(doc)
    assert [anchor for target, anchor in references if anchor not in anchors(target)] == ["lost-part"]
