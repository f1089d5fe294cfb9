"""The code asset's layout and bytecode (built offline, in a temp dir), and the asset hashes.

The dependency layer needs PyPI, so it is built by `make synth` and scripts/bench_cold_start.py,
not here; its inputs are checked instead.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from infra.aws import bundling


def _tree(root: Path) -> Path:
    (root / "functions" / "storefront").mkdir(parents=True)
    (root / "functions" / "__init__.py").write_text("")
    (root / "functions" / "storefront" / "__init__.py").write_text("")
    (root / "functions" / "storefront" / "get_thing.py").write_text("handler = None\n")
    (root / "functions" / "__pycache__").mkdir()
    (root / "functions" / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"stale")
    (root / "shared" / "webstore" / "templates").mkdir(parents=True)
    (root / "shared" / "webstore" / "__init__.py").write_text("")
    (root / "shared" / "webstore" / "templates" / "page.html").write_text("<p>")
    return root


def test_code_asset_puts_functions_and_webstore_at_its_root(tmp_path: Path) -> None:
    if bundling.find_target_python() is None:
        pytest.skip(f"no CPython {bundling.TARGET_VERSION} on this machine")
    root = _tree(tmp_path / "repo")
    out = bundling.build_code(tmp_path / "asset", root)
    assert (out / "functions" / "storefront" / "get_thing.py").is_file()
    assert (out / "webstore" / "templates" / "page.html").is_file()
    assert not (out / "functions" / "__pycache__" / "stale.cpython-311.pyc").exists()
    pyc = out / "functions" / "storefront" / "__pycache__" / "get_thing.cpython-312.pyc"
    header = pyc.read_bytes()[:8]
    python = bundling.find_target_python()
    assert python is not None
    magic = subprocess.run(
        [python, "-c", "import importlib.util; print(importlib.util.MAGIC_NUMBER.hex())"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert header[:4].hex() == magic, "bytecode must be 3.12's, not this interpreter's"
    # PEP 552 flags: 0b01 = hash-based, check_source off → never recompiled on a read-only disk.
    assert int.from_bytes(header[4:8], "little") == 0b01


def test_code_hash_follows_the_shipped_sources(tmp_path: Path) -> None:
    root = _tree(tmp_path / "repo")
    before = bundling.code_hash(root)
    (root / "functions" / "__pycache__" / "other.pyc").write_bytes(b"ignored")
    assert bundling.code_hash(root) == before
    (root / "shared" / "webstore" / "__init__.py").write_text("VERSION = 2\n")
    assert bundling.code_hash(root) != before


def test_layer_carries_exactly_the_runtime_dependencies(tmp_path: Path) -> None:
    requirements = bundling.runtime_requirements()
    names = {r.split("[")[0].split("=")[0].lower() for r in requirements}
    assert {"boto3", "fastapi", "mangum", "aws-lambda-powertools", "pydantic"} <= names
    assert not {"moto", "flask", "uvicorn", "aws-cdk-lib", "pytest"} & names
    assert "pydantic-settings" not in names  # settings are a plain model (webstore/settings.py)
    root = tmp_path / "repo"
    root.mkdir()
    shutil.copy(bundling.ROOT / "pyproject.toml", root)
    shutil.copy(bundling.ROOT / "constraints.txt", root)
    before = bundling.layer_hash(root)
    with (root / "constraints.txt").open("a") as file:
        file.write("extra-package==1.0\n")
    assert bundling.layer_hash(root) != before


def test_the_code_asset_carries_the_panels_static_assets() -> None:
    """The panel serves its vendored htmx from the function's own code (no CDN at run time)."""
    shipped = {target for _, target in bundling._source_files(bundling.ROOT)}
    assert any(t.endswith("webstore/admin/static/htmx.min.js") for t in shipped), sorted(shipped)[:5]
    assert any(t.endswith("webstore/admin/static/htmx.LICENSE") for t in shipped)


def test_the_code_asset_carries_the_templates_compiled_ahead_of_time(tmp_path: Path) -> None:
    """The bundle compiles the house templates (webstore.html.compile) where webstore.html
    looks for them at a cold start, and the shop's default theme where the owner sandbox does
    (compiled by the sandbox's environment: its checks and loop budget are in the code); a
    local compile in the source tree is never shipped."""
    from jinja2 import ModuleLoader

    target = bundling.compile_templates(tmp_path / "asset")
    assert target == tmp_path / "asset" / "webstore" / "html" / "compiled"
    root = bundling.ROOT / "shared" / "webstore" / "html" / "templates"
    # The shop's theme renders in the owner sandbox, not from the house's compiled modules.
    templates = [t for t in root.rglob("*.*") if not t.relative_to(root).as_posix().startswith("shop/")]
    assert len(list(target.glob("tmpl_*.py"))) == len(templates) > 0
    theme = [t.relative_to(root / "shop").as_posix() for t in (root / "shop").rglob("*.html")]
    assert {"index.html", "layout.html", "cms/page.html"} <= set(theme)
    modules = {p.name for p in (target / "shop").glob("tmpl_*.py")}
    assert modules == {ModuleLoader.get_module_filename(name) for name in theme}
    layout = (target / "shop" / ModuleLoader.get_module_filename("layout.html")).read_text()
    assert "loop_budget" in layout and "environment.call(" in layout
    shipped = {name for _, name in bundling._source_files(bundling.ROOT)}
    assert "webstore/html/templates/layout/player.html" in shipped
    assert not any(name.startswith("webstore/html/compiled/") for name in shipped)
    assert bundling.compile_templates(tmp_path / "other", _tree(tmp_path / "repo")) is None
