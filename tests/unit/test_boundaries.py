"""The repository is the only door to the table: use cases (everything in shared/webstore but
the repositories, the table wrapper and the composition root) and handlers make no
`table.<op>()` call and build no `TransactAction`. The import contracts (lint-imports,
pyproject.toml) keep boto3/botocore and `webstore.db` out of use cases; this keeps the calls out."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared" / "webstore"
# Where the table is allowed: the repositories, the table itself, the composition root.
TABLE_LAYER = (SHARED / "repo", SHARED / "db.py", SHARED / "services.py")


def use_case_files() -> list[Path]:
    files = [*sorted(SHARED.rglob("*.py")), *sorted((ROOT / "functions").rglob("*.py"))]
    return [f for f in files if not any(f == layer or layer in f.parents for layer in TABLE_LAYER)]


def _is_table(node: ast.expr) -> bool:
    """`table`, `services.table`, `self.table`, …: the receiver of a table operation."""
    return (isinstance(node, ast.Name) and node.id == "table") or (
        isinstance(node, ast.Attribute) and node.attr == "table"
    )


def violations(source: str, filename: str = "<source>") -> list[str]:
    """Each table call and each use of `TransactAction` in a module's source, as `file:line: what`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source, filename)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_table(node.func.value):
            found.append((node.lineno, f"table.{node.func.attr}() call"))
        elif (isinstance(node, ast.Name) and node.id == "TransactAction") or (
            isinstance(node, ast.Attribute) and node.attr == "TransactAction"
        ):
            found.append((node.lineno, "TransactAction used"))
        elif isinstance(node, ast.alias) and node.name.rsplit(".", 1)[-1] == "TransactAction":
            found.append((getattr(node, "lineno", 0), "TransactAction imported"))
    return [f"{filename}:{line}: {what}" for line, what in sorted(found)]


def test_use_cases_reach_the_table_only_through_repositories() -> None:
    found = [v for f in use_case_files() for v in violations(f.read_text(), str(f.relative_to(ROOT)))]
    assert found == [], "use repository methods instead:\n" + "\n".join(found)


def test_the_checker_flags_table_calls_and_hand_built_actions() -> None:
    offending = """
from webstore.db import TransactAction

def use_case(services, table):
    services.table.update({"PK": "A", "SK": "B"}, "SET x = :x")
    table.get({"PK": "A", "SK": "B"})
    services.table.transact([TransactAction.put({"PK": "A", "SK": "B"})])
"""
    assert violations(offending, "sample.py") == [
        "sample.py:2: TransactAction imported",
        "sample.py:5: table.update() call",
        "sample.py:6: table.get() call",
        "sample.py:7: TransactAction used",
        "sample.py:7: table.transact() call",
    ]


def test_the_checker_allows_handing_the_table_to_a_repository() -> None:
    allowed = """
def use_case(services):
    name = services.table.name
    return StoreRepository(services.table).store(1), name
"""
    assert violations(allowed) == []


def test_the_checker_sees_every_use_case_package() -> None:
    names = {f.relative_to(SHARED).parts[0] for f in use_case_files() if SHARED in f.parents}
    assert {"storefront", "operator", "checkout", "webhooks", "catalog_import.py"} <= names
    assert "repo" not in names and "db.py" not in names
