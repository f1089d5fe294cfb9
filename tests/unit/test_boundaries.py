"""The repository is the only door to the table: use cases (everything in shared/webstore but
the repositories, the table wrapper, the key ranges and the composition root) and handlers make
no `table.<op>()` call, build no `TransactAction`, add no item to a `Transaction` themselves
(`tx.put/update/delete/check`: a repository method adds its actions), build no key by hand (an
f-string or concatenation starting with one of webstore.keys' prefixes, `"PAY#…"`), and do not
import `webstore.db`. The import contracts (lint-imports, pyproject.toml) say the same for the
modules they name; this check covers every module, including ones added later."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT / "shared" / "webstore"
KEYS = SHARED / "keys.py"
# Where the table is allowed: the repositories, the table itself, the key ranges, the composition root.
TABLE_LAYER = (SHARED / "repo", SHARED / "db.py", KEYS, SHARED / "services.py")
# What adding to a transaction is called (`commit` is the use case's to call).
TRANSACTION_ADDS = {"put", "update", "delete", "check", "add"}
_PREFIX = re.compile(r"^[0-9]?[A-Z][A-Z_]*#")


def key_prefixes(source: str) -> frozenset[str]:
    """Every key prefix webstore.keys builds keys from (`PAY#`, `ACCOUNT#`, `2GOAL#`, …)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = _PREFIX.match(node.value)
            if match:
                found.add(match.group(0))
    return frozenset(found)


PREFIXES = key_prefixes(KEYS.read_text())


def use_case_files() -> list[Path]:
    files = [*sorted(SHARED.rglob("*.py")), *sorted((ROOT / "functions").rglob("*.py"))]
    return [f for f in files if not any(f == layer or layer in f.parents for layer in TABLE_LAYER)]


def _is_table(node: ast.expr) -> bool:
    """`table`, `services.table`, `self.table`, …: the receiver of a table operation."""
    return (isinstance(node, ast.Name) and node.id == "table") or (
        isinstance(node, ast.Attribute) and node.attr == "table"
    )


def _transactions(tree: ast.AST) -> set[str]:
    """Names that hold a transaction: `tx`, anything assigned `Transaction(…)` or
    `….transaction()`, and parameters annotated `Transaction`."""
    names = {"tx"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            called = node.value.func
            if (isinstance(called, ast.Name) and called.id == "Transaction") or (
                isinstance(called, ast.Attribute) and called.attr in {"Transaction", "transaction"}
            ):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
        elif isinstance(node, ast.arg) and node.annotation is not None:
            annotation = ast.unparse(node.annotation)
            if annotation.rsplit(".", 1)[-1].strip("'\"") == "Transaction":
                names.add(node.arg)
    return names


def _hand_built_key(node: ast.AST, prefixes: frozenset[str]) -> str | None:
    """The prefix of a key built by hand here: an f-string, a `+`/`%` or `.format` on a string
    that starts with a key prefix."""
    first: ast.AST | None = None
    if (
        isinstance(node, ast.JoinedStr)
        and node.values
        and any(isinstance(v, ast.FormattedValue) for v in node.values)
    ):
        first = node.values[0]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Mod):
        first = node.left
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format":
        first = node.func.value
    if isinstance(first, ast.Constant) and isinstance(first.value, str):
        match = _PREFIX.match(first.value)
        if match and match.group(0) in prefixes:
            return match.group(0)
    return None


def _imports_db(node: ast.AST) -> bool:
    if isinstance(node, ast.ImportFrom):
        return node.module == "webstore.db" or (
            node.module == "webstore" and any(a.name == "db" for a in node.names)
        )
    return isinstance(node, ast.Import) and any(a.name == "webstore.db" for a in node.names)


def violations(source: str, filename: str = "<source>", prefixes: frozenset[str] = PREFIXES) -> list[str]:
    """Each table call, use of `TransactAction`, item added to a transaction, hand-built key and
    import of `webstore.db` in a module's source, as `file:line: what`."""
    found: list[tuple[int, str]] = []
    tree = ast.parse(source, filename)
    transactions = _transactions(tree)
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_table(node.func.value):
            found.append((node.lineno, f"table.{node.func.attr}() call"))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in TRANSACTION_ADDS
            and isinstance(node.func.value, ast.Name)
            and node.func.value.id in transactions
        ):
            found.append((node.lineno, f"{node.func.value.id}.{node.func.attr}() on a transaction"))
        elif (isinstance(node, ast.Name) and node.id == "TransactAction") or (
            isinstance(node, ast.Attribute) and node.attr == "TransactAction"
        ):
            found.append((node.lineno, "TransactAction used"))
        elif isinstance(node, ast.alias) and node.name.rsplit(".", 1)[-1] == "TransactAction":
            found.append((getattr(node, "lineno", 0), "TransactAction imported"))
        if _imports_db(node):
            found.append((getattr(node, "lineno", 0), "webstore.db imported"))
        prefix = _hand_built_key(node, prefixes)
        if prefix is not None:
            found.append((getattr(node, "lineno", 0), f"{prefix}… key built by hand"))
    return [f"{filename}:{line}: {what}" for line, what in sorted(found)]


def test_use_cases_reach_the_table_only_through_repositories() -> None:
    found = [v for f in use_case_files() for v in violations(f.read_text(), str(f.relative_to(ROOT)))]
    assert found == [], "use repository methods instead:\n" + "\n".join(found)


def test_the_prefixes_are_the_key_ranges_of_webstore_keys() -> None:
    assert {"ACCOUNT#", "PAY#", "QUEUE#", "SECRET#", "2GOAL#", "WEBHOOK#"} <= PREFIXES
    assert "SEQ" not in PREFIXES  # a plain item name, not a prefix


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
        "sample.py:2: webstore.db imported",
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
    assert "repo" not in names and "db.py" not in names and "keys.py" not in names
    assert {"admin", "payments", "subscriptions"} <= names


def test_the_checker_flags_items_added_to_a_transaction() -> None:
    offending = """
from webstore.repo import Transaction

def use_case(services, table, txn: Transaction, other: "Transaction"):
    tx = Transaction(table)
    tx.put({"PK": "A", "SK": "B"})
    made = services.transaction()
    made.update({"PK": "A", "SK": "B"}, "SET x = :x")
    txn.delete({"PK": "A", "SK": "B"})
    other.check({"PK": "A", "SK": "B"}, "attribute_exists(PK)")
    tx.commit()
"""
    assert violations(offending, "sample.py") == [
        "sample.py:6: tx.put() on a transaction",
        "sample.py:8: made.update() on a transaction",
        "sample.py:9: txn.delete() on a transaction",
        "sample.py:10: other.check() on a transaction",
    ]


def test_the_checker_allows_handing_a_transaction_to_repositories() -> None:
    allowed = """
def use_case(services, now):
    tx = services.transaction()
    PaymentRepository.add_update(tx, payment)
    AuditLog(services.table).add_to(tx, 1, "a", "b", "c", now)
    basket.update({"x": 1})
    tx.commit()
"""
    assert violations(allowed) == []


def test_the_checker_flags_hand_built_keys_and_db_imports() -> None:
    offending = """
import webstore.db
from webstore import db
from webstore.db import Item

def use_case(account_id, payment_id):
    pk = f"ACCOUNT#{account_id}"
    sk = "PAY#" + str(payment_id).zfill(10)
    other = "QUEUE#%d" % account_id
    old = "SECRET#{}".format(payment_id)
    return pk, sk, other, old
"""
    assert violations(offending, "sample.py") == [
        "sample.py:2: webstore.db imported",
        "sample.py:3: webstore.db imported",
        "sample.py:4: webstore.db imported",
        "sample.py:7: ACCOUNT#… key built by hand",
        "sample.py:8: PAY#… key built by hand",
        "sample.py:9: QUEUE#… key built by hand",
        "sample.py:10: SECRET#… key built by hand",
    ]


def test_the_checker_allows_keys_from_webstore_keys_and_plain_text() -> None:
    allowed = """
CURSOR = re.compile(r"^PAY#[0-9]{10}$")

def use_case(account_id, name):
    pk = keys.account_pk(account_id)
    shown = f"Payment #{account_id}: {name}"
    return pk, shown, "PAY#"
"""
    assert violations(allowed) == []


def test_handlers_define_no_request_or_response_models() -> None:
    """An interface's wire models live in its schemas module (webstore/<interface>/schemas.py):
    an operation module parses with them and defines none."""
    found = []
    for f in sorted((ROOT / "functions").rglob("*.py")):
        if f.parent.name not in {"storefront", "operator", "admin"}:
            continue
        for node in ast.walk(ast.parse(f.read_text())):
            if isinstance(node, ast.ClassDef) and any(
                ast.unparse(base).rsplit(".", 1)[-1] in {"BaseModel", "Wire", "Model"} for base in node.bases
            ):
                found.append(f"{f.relative_to(ROOT)}:{node.lineno}: class {node.name}")
    assert found == [], "move these to the interface's schemas module:\n" + "\n".join(found)
