"""The shop's default theme compiled ahead of time (what a Lambda bundle carries,
webstore.html.owner.compile_theme) is still the sandbox's code: a theme file loaded from its
compiled module refuses the escapes and keeps the render budget, its errors name the theme file
and line as the file's do, and an owner's files still replace it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jinja2 import Environment, FileSystemLoader, ModuleLoader

from webstore.html import owner
from webstore.html.owner import OwnerTemplateError, RenderBudget, compile_theme, render_owner, sanitize

CONTEXT: dict[str, Any] = {
    "store": {"name": "Demo Craft", "description": sanitize("<p>Hi</p>")},
    "packages": [{"name": "VIP", "price": "4.99"}],
}
# Line 2 of each file does the harm.
THEME_FILES = {
    "layout.html": "<main>\n{% block content %}{% endblock %}\n</main>",
    "index.html": '{% extends "layout.html" %}\n{% block content %}{{ store.name }}{% endblock %}',
    "escape_attribute.html": "one\n{{ store.__class__.__mro__[1].__subclasses__() }}",
    "escape_item.html": "one\n{{ store['__class__'] }}",
    "escape_format.html": "one\n{{ '{0.__class__.__mro__}'.format(store) }}",
    "escape_mutation.html": "one\n{% set x = packages.append(1) %}{{ x }}",
    "escape_globals.html": "one\n{{ cycler.__init__.__globals__ }}",
    "loops.html": "one\n{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}",
    "product.html": "one\n{{ 'x' * 100000000 }}",
    "power.html": "one\n{{ 9 ** 99999999 }}",
}
ESCAPES = [name for name in THEME_FILES if name.startswith("escape_")]


def _write(theme: Path, files: dict[str, str]) -> Path:
    for name, source in files.items():
        (theme / name).parent.mkdir(parents=True, exist_ok=True)
        (theme / name).write_text(source)
    return theme


@pytest.fixture
def use_theme(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """Point the owner environments at a theme and (or None: its files) its compiled modules."""

    def use(theme: Path, compiled: Path | None) -> None:
        monkeypatch.setattr(owner, "THEME", theme)
        monkeypatch.setattr(owner, "COMPILED_THEME", compiled or theme.parent / "absent")
        owner.reset()

    yield use
    monkeypatch.undo()
    owner.reset()


@pytest.fixture
def compiled(tmp_path: Path, use_theme: Any) -> Path:
    """A test theme compiled by compile_theme, loaded from its modules."""
    theme = _write(tmp_path / "theme", THEME_FILES)
    target = tmp_path / "compiled"
    assert sorted(compile_theme(target, theme)) == sorted(THEME_FILES)
    use_theme(theme, target)
    assert isinstance(owner.environment().loader, ModuleLoader)
    return target


@pytest.mark.parametrize("name", ESCAPES)
def test_a_compiled_theme_file_still_refuses_every_escape(compiled: Path, name: str) -> None:
    with pytest.raises(OwnerTemplateError) as caught:
        render_owner(name, **CONTEXT)
    assert (caught.value.name, caught.value.line) == (name, 2), caught.value
    assert CONTEXT["packages"] == [{"name": "VIP", "price": "4.99"}]  # nothing changed


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("loops.html", "loops ran more than 200,000 times"),
        ("product.html", "a `\\*` would make more than"),
        ("power.html", "a `\\*\\*` would make a number"),
    ],
)
def test_a_compiled_theme_file_still_keeps_the_budget(compiled: Path, name: str, message: str) -> None:
    with pytest.raises(OwnerTemplateError, match=message) as caught:
        render_owner(name, **CONTEXT)
    assert (caught.value.name, caught.value.line) == (name, 2)


def test_the_sandbox_is_in_the_compiled_code(compiled: Path, tmp_path: Path, use_theme: Any) -> None:
    """The checks are compiled in, not only looked up at run time: a theme compiled by a plain
    Environment and loaded by the owner's would run its loops past the budget."""
    code = (compiled / ModuleLoader.get_module_filename("loops.html")).read_text()
    assert code.count(owner.LOOP_BUDGET_FILTER) >= 2
    assert (
        "environment.call_binop(" in (compiled / ModuleLoader.get_module_filename("product.html")).read_text()
    )
    assert (
        "environment.call("
        in (compiled / ModuleLoader.get_module_filename("escape_mutation.html")).read_text()
    )

    plain = tmp_path / "plain"
    plain_env = Environment(loader=FileSystemLoader(str(tmp_path / "theme")))
    plain_env.compile_templates(str(plain), zip=None, filter_func=lambda name: name == "loops.html")
    use_theme(tmp_path / "theme", plain)
    source = (plain / ModuleLoader.get_module_filename("loops.html")).read_text()
    assert owner.LOOP_BUDGET_FILTER not in source
    small = RenderBudget(loop_steps=10)
    assert render_owner("loops.html", budget=small) == "one\n"  # the budget never saw the loops
    use_theme(tmp_path / "theme", compiled)
    with pytest.raises(OwnerTemplateError, match="loops ran more than 10 times"):
        render_owner("loops.html", budget=small)


def test_an_error_in_a_compiled_theme_file_names_the_file_and_line_as_the_file_does(
    tmp_path: Path, use_theme: Any
) -> None:
    """The default theme itself: a page whose data lacks what the layout reads fails naming
    the same theme file and line from its compiled module as from its file."""
    target = tmp_path / "compiled"
    compile_theme(target)
    theme = owner.THEME
    seen = []
    for where in (target, None):
        use_theme(theme, where)
        with pytest.raises(OwnerTemplateError) as caught:
            render_owner("index.html", title="Home")
        seen.append((caught.value.name, caught.value.line, caught.value.message))
    assert seen[0] == seen[1] and seen[0][0] in {"layout.html", "index.html"} and seen[0][1], seen


def test_an_owners_files_replace_the_compiled_theme_and_compile_on_first_use(compiled: Path) -> None:
    layout = "<div class='mine'>\n{% block content %}{% endblock %}\n</div>"
    assert render_owner("index.html", **CONTEXT) == "<main>\nDemo Craft</main>"
    # The theme's compiled index.html extends the owner's layout.html.
    assert (
        render_owner("index.html", {"layout.html": layout}, **CONTEXT)
        == "<div class='mine'>\nDemo Craft</div>"
    )
    # An error in the owner's file names it; one in a compiled theme file it includes names that.
    with pytest.raises(OwnerTemplateError) as caught:
        render_owner("index.html", {"layout.html": "x\n\n{{ store.__class__ }}"}, **CONTEXT)
    assert (caught.value.name, caught.value.line) == ("layout.html", 3)
    with pytest.raises(OwnerTemplateError) as caught:
        render_owner("index.html", {"index.html": 'x\n{% include "loops.html" %}'}, **CONTEXT)
    assert (caught.value.name, caught.value.line) == ("loops.html", 2)
    loader = owner.environment({"layout.html": layout}).loader
    assert [type(each).__name__ for each in getattr(loader, "loaders", [])] == [
        "_OwnerLoader",
        "_CompiledTheme",
    ]


def test_without_compiled_modules_the_theme_files_load(tmp_path: Path, use_theme: Any) -> None:
    use_theme(owner.THEME, None)
    assert isinstance(owner.environment().loader, FileSystemLoader)
    loader = owner.environment({"index.html": "x"}).loader
    assert isinstance(getattr(loader, "loaders", [None])[-1], FileSystemLoader)
