"""HTML lives in template files (shared/webstore/html/templates, rendered by `webstore.html`):
no module of shared/ or functions/ outside shared/webstore/html/ builds HTML from strings —
no `Safe(…)`, `fill(…)`, `Markup(…)` or `string.Template`, no f-string, concatenation,
`%`/`.format()`/`.join()` or HTML response made of a literal holding a tag.

The one exception is `MARKDOWN` (not HTML); a module on it that no longer matches fails the
test too, so that the exception does not outlive its reason."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TOOLKIT = ROOT / "shared" / "webstore" / "html"
SCANNED = (ROOT / "shared", ROOT / "functions")

# Not HTML: Markdown, whose table cells can break a line only with <br> (the generated route
# table of docs/architecture.md).
MARKDOWN = frozenset({"functions/routes.py"})

TAG = re.compile(r"<!doctype|<\s*/?\s*[a-zA-Z][a-zA-Z0-9-]*(\s[^<>]*)?/?>", re.IGNORECASE)
BUILDERS = {"Safe", "fill", "Markup", "Template"}
RESPONSES = {"HTMLResponse", "Response"}


def _has_tag(node: ast.AST) -> bool:
    """A string literal, or an f-string's literal parts, holding an HTML tag."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return bool(TAG.search(node.value))
    if isinstance(node, ast.JoinedStr):
        text = "".join(
            v.value for v in node.values if isinstance(v, ast.Constant) and isinstance(v.value, str)
        )
        return bool(TAG.search(text))
    return False


def _name(func: ast.expr) -> str:
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def violations(source: str) -> list[str]:
    """Each place a module builds HTML from strings, as `line: what`."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            name = _name(node.func)
            if name in BUILDERS:
                found.append((node.lineno, f"{name}(…)"))
            elif name in RESPONSES and any(
                _has_tag(arg) for arg in [*node.args, *(k.value for k in node.keywords)]
            ):
                found.append((node.lineno, f"{name} of a literal holding a tag"))
            elif (
                isinstance(node.func, ast.Attribute)
                and node.func.attr in ("join", "format")
                and _has_tag(node.func.value)
            ):
                found.append((node.lineno, f".{node.func.attr}() of a literal holding a tag"))
        elif isinstance(node, ast.ImportFrom) and node.module == "string":
            if any(alias.name == "Template" for alias in node.names):
                found.append((node.lineno, "string.Template imported"))
        elif isinstance(node, ast.Attribute) and node.attr == "Template" and _name(node.value) == "string":
            found.append((node.lineno, "string.Template used"))
        elif isinstance(node, ast.JoinedStr) and _has_tag(node):
            found.append((node.lineno, "f-string holding a tag"))
        elif (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, (ast.Add, ast.Mod))
            and (_has_tag(node.left) or _has_tag(node.right))
        ):
            found.append((node.lineno, "concatenation or % of a literal holding a tag"))
    return [f"{line}: {what}" for line, what in sorted(set(found))]


def scanned_files() -> list[Path]:
    files = [path for base in SCANNED for path in sorted(base.rglob("*.py"))]
    return [path for path in files if TOOLKIT not in path.parents and "__pycache__" not in path.parts]


def test_no_module_builds_html_from_strings() -> None:
    offenders: dict[str, list[str]] = {}
    for path in scanned_files():
        name = path.relative_to(ROOT).as_posix()
        found = violations(path.read_text())
        if found and name not in MARKDOWN:
            offenders[name] = found
    assert not offenders, (
        f"HTML built from strings; write a template in {TOOLKIT.relative_to(ROOT)}/templates: {offenders}"
    )


def test_the_exception_still_has_its_reason() -> None:
    """Every module on the Markdown list still exists and still writes tags: else it comes off."""
    for name in sorted(MARKDOWN):
        path = ROOT / name
        assert path.is_file() and violations(path.read_text()), f"{name} writes no tags: take it off the list"


def test_the_check_finds_each_way_of_building_html() -> None:
    source = """
from string import Template
import string
from fastapi.responses import HTMLResponse
a = Safe(f"<p>{x}</p>")
b = fill(T, x=1)
c = Markup("<b>")
d = f"<li>{item}</li>"
e = "<td>" + value + "</td>"
f = "<a href=%s>" % href
g = "<br>".join(parts)
h = "<p>{}</p>".format(text)
i = HTMLResponse("<!doctype html><html></html>")
j = string.Template("$x")
k = "a < b and c > d"
l = f"{count} items"
m = "<3 it"
"""
    lines = [int(v.split(":")[0]) for v in violations(source)]
    assert lines.count(5) == 2 and 6 in lines and 7 in lines and 8 in lines and 9 in lines
    assert {2, 10, 11, 12, 13, 14} <= set(lines)
    assert not {15, 16, 17} & set(lines), violations(source)
