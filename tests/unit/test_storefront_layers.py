"""The storefront's use cases reach the table only through repositories: no `<x>.table.<op>()`
call, no hand-built transaction action, no raw item or botocore error in them."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import webstore.storefront

USE_CASES = sorted(Path(webstore.storefront.__file__).parent.glob("*.py"))
BANNED_NAMES = {"TransactAction", "ClientError", "Item", "from_item", "to_item", "Table", "Transaction"}


def table_calls(tree: ast.AST) -> list[str]:
    """`….table.op(…)` calls: the table used directly rather than handed to a repository."""
    found = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and isinstance(node.func.value, ast.Attribute)
            and node.func.value.attr == "table"
        ):
            found.append(f"line {node.lineno}: .table.{node.func.attr}()")
    return found


def banned_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names = {alias.name for alias in node.names}
            if node.module in ("webstore.db", "botocore.exceptions") and names & BANNED_NAMES:
                found.append(f"line {node.lineno}: from {node.module} import {sorted(names & BANNED_NAMES)}")
    return found


@pytest.mark.parametrize("path", USE_CASES, ids=lambda p: p.name)
def test_storefront_modules_use_repositories_only(path: Path) -> None:
    tree = ast.parse(path.read_text())
    assert table_calls(tree) == [] and banned_imports(tree) == []


def test_the_check_sees_a_table_call_and_a_hand_built_action() -> None:
    offending = ast.parse(
        "from webstore.db import TransactAction\n"
        "def use_case(services):\n"
        "    services.table.put({'PK': 'x'})\n"
    )
    assert table_calls(offending) == ["line 3: .table.put()"]
    assert banned_imports(offending) == ["line 1: from webstore.db import ['TransactAction']"]
