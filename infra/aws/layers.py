"""Which dependency layers each function carries: the base layer always, and the heavy ones
(Stripe's library, cryptography) only where the function's code can import them.

"Can import" is read from the source, not guessed: the transitive closure of the handler
module's imports through `functions` and `webstore` (the project's own modules), imports inside
functions included (a lazy `import stripe` still needs the package at run time), imports under
`if TYPE_CHECKING:` left out (they never run). A function's layers are the base plus each layer
whose package is in that closure; tests/infra/test_layers.py checks the synthesized template
against it and imports every handler with the packages it lacks blocked.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BASE = "base"
# layer name -> (the distribution it carries, the top-level package code imports)
OPTIONAL = {"stripe": ("stripe", "stripe"), "crypto": ("cryptography", "cryptography")}
_OWN = ("functions", "webstore")


def _source(module: str, root: Path) -> Path | None:
    parts = module.split(".")
    base = root / "shared" if parts[0] == "webstore" else root
    for candidate in (base.joinpath(*parts).with_suffix(".py"), base.joinpath(*parts, "__init__.py")):
        if candidate.is_file():
            return candidate
    return None


def _type_checking_only(tree: ast.Module) -> set[int]:
    skipped: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.body:
                skipped.update(id(n) for n in ast.walk(child))
    return skipped


@cache
def _imports(module: str, root: Path) -> frozenset[str]:
    """Every module name `module`'s source imports (and `from x import y` as `x` and `x.y`)."""
    path = _source(module, root)
    if path is None:
        return frozenset()
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _type_checking_only(tree)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skipped:
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                name = ".".join([*anchor, *([node.module] if node.module else [])])
            else:
                name = node.module or ""
            found.add(name)
            found.update(f"{name}.{alias.name}" for alias in node.names)
    return frozenset(found)


def third_party_imports(module: str, root: Path = ROOT) -> frozenset[str]:
    """The top-level packages outside the project that `module` can import, transitively."""
    seen: set[str] = set()
    outside: set[str] = set()
    pending = [module]
    while pending:
        name = pending.pop()
        if name in seen:
            continue
        seen.add(name)
        top = name.split(".")[0]
        if top not in _OWN:
            outside.add(top)
            continue
        if _source(name, root) is None:
            continue  # `from package import name` where name is not a module
        pending.extend(_imports(name, root))
        parts = name.split(".")
        pending.extend(".".join(parts[:i]) for i in range(1, len(parts)))  # parents' __init__
    return frozenset(outside)


def layers_for(handler: str, root: Path = ROOT) -> tuple[str, ...]:
    """The layers of the function whose handler is `handler` (`functions.x.y.handler`)."""
    imported = third_party_imports(handler.rpartition(".")[0], root)
    return (BASE, *(name for name, (_, package) in OPTIONAL.items() if package in imported))
