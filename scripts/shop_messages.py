"""The shop's message catalogs (docs/shop.md, "Languages"): extract the default theme's text,
update each language's catalog, compile it.

    python scripts/shop_messages.py           # writes locale/shop.pot, updates every .po, compiles .mo
    python scripts/shop_messages.py --check   # fails if a catalog lacks a text or a .mo is stale

The text is every string the theme's templates pass to Tebex's `trans` filter
(`{{ "Log in"|trans }}`), and the same in the hosted pages and the player e-mails
(templates/mail/, their subject lines and receipt rows from webstore.mail). A text new to a
catalog is added untranslated: translate it in the .po file, then run the script again
(tests/unit/shop/test_catalogs.py refuses a catalog that is not complete).
"""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path

from babel.messages.catalog import Catalog
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po, write_po

from webstore.html import TEMPLATES
from webstore.html.owner import THEME
from webstore.mail.compose import SUBJECTS
from webstore.mail.messages import ROW_LABELS
from webstore.mail.sign_in import SUBJECT as SIGN_IN_SUBJECT
from webstore.shop.i18n import (
    DATE_PATTERN,
    DOMAIN,
    HOSTED_TEMPLATES,
    HOSTED_TEXTS,
    LANGUAGES,
    LOCALE,
    MAIL_TEMPLATES,
    MONTHS,
    PYTHON_TEXTS,
    SOURCE_LANGUAGE,
)

TRANS = re.compile(r'"((?:[^"\\]|\\.)*)"\s*\|\s*trans\b')


def extracted() -> dict[str, list[tuple[str, int]]]:
    """Each text of the theme with where it is used (file, line)."""
    found: dict[str, list[tuple[str, int]]] = {}
    for path in sorted(THEME.rglob("*.html")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            for match in TRANS.finditer(line):
                found.setdefault(match.group(1), []).append((path.relative_to(THEME).as_posix(), number))
    for pattern in (*HOSTED_TEMPLATES, *MAIL_TEMPLATES):  # the hosted pages, the player e-mails
        for path in sorted(TEMPLATES.glob(pattern)):
            for number, line in enumerate(path.read_text().splitlines(), start=1):
                for match in TRANS.finditer(line):
                    found.setdefault(match.group(1), []).append(
                        (path.relative_to(TEMPLATES).as_posix(), number)
                    )
    for text in (*PYTHON_TEXTS, *HOSTED_TEXTS, DATE_PATTERN, *MONTHS):  # what the pages' Python passes
        found.setdefault(text, []).append(("i18n.py", 0))
    for text in (*SUBJECTS.values(), SIGN_IN_SUBJECT, *ROW_LABELS):  # the e-mails' subjects, rows
        found.setdefault(text, []).append(("mail/compose.py", 0))
    return found


def template() -> Catalog:
    pot = Catalog(project="webstore shop", domain=DOMAIN, fuzzy=False)
    for text, places in extracted().items():
        pot.add(text, locations=places, flags=("python-format",) if "%(" in text else ())
    return pot


def po_path(language: str) -> Path:
    return LOCALE / language / "LC_MESSAGES" / f"{DOMAIN}.po"


def compiled(catalog: Catalog) -> bytes:
    out = io.BytesIO()
    write_mo(out, catalog)
    return out.getvalue()


def missing(catalog: Catalog, texts: set[str]) -> list[str]:
    """The theme's texts the catalog does not translate (absent, empty or fuzzy)."""
    gaps = []
    for text in sorted(texts):
        message = catalog.get(text)
        if message is None or not message.string or message.fuzzy:
            gaps.append(text)
    return gaps


def main(argv: list[str]) -> int:
    check = "--check" in argv
    pot = template()
    texts = {str(m.id) for m in pot if m.id}
    problems: list[str] = []
    if not check:
        buffer = io.BytesIO()
        write_po(buffer, pot, omit_header=False, sort_output=True)
        (LOCALE / f"{DOMAIN}.pot").write_bytes(buffer.getvalue())
    for language in LANGUAGES:
        if language == SOURCE_LANGUAGE:
            continue
        path = po_path(language)
        with path.open("rb") as file:
            catalog = read_po(file, locale=language, domain=DOMAIN)
        if not check:
            catalog.update(pot, no_fuzzy_matching=True)
            catalog.obsolete.clear()
            buffer = io.BytesIO()
            write_po(buffer, catalog, sort_output=True, ignore_obsolete=True)
            path.write_bytes(buffer.getvalue())
            path.with_suffix(".mo").write_bytes(compiled(catalog))
        gaps = missing(catalog, texts)
        if gaps:
            problems.append(f"{language}: not translated: {gaps}")
        if check and path.with_suffix(".mo").read_bytes() != compiled(catalog):
            problems.append(
                f"{language}: {path.with_suffix('.mo').name} is stale: run scripts/shop_messages.py"
            )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
