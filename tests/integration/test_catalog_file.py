"""Issue 15 items 7 and 8: the catalog file's published schema and the mistakes it is refused for,
through the real entry points (`webstore catalog schema`, `webstore import`, `webstore serve
--catalog`, each a subprocess)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from tests.support.demo import DEMO_CATALOG, demo_catalog_data

ROOT = Path(__file__).resolve().parents[2]
COMMITTED_SCHEMA = ROOT / "shared" / "webstore" / "demo" / "catalog.schema.json"


def webstore(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    return subprocess.run(
        [sys.executable, "-m", "infra.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=timeout,
        check=False,
    )


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    result = webstore("catalog", "schema")
    assert result.returncode == 0, result.stderr
    return dict(json.loads(result.stdout))


def test_the_committed_schema_is_what_the_models_generate(schema: dict[str, Any]) -> None:
    """Regenerate with `webstore catalog schema > shared/webstore/demo/catalog.schema.json`."""
    assert json.loads(COMMITTED_SCHEMA.read_text()) == schema


def test_the_demo_catalog_names_the_schema_and_validates_against_it(schema: dict[str, Any]) -> None:
    data = json.loads(DEMO_CATALOG.read_text())
    assert (DEMO_CATALOG.parent / data["$schema"]).resolve() == COMMITTED_SCHEMA
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(data)


@pytest.mark.parametrize(
    ("change", "schema_path"),
    [
        (lambda d: d["store"].pop("currency"), "currency"),
        (lambda d: d["packages"][0].update(price=-1), "price"),
        (lambda d: d["packages"][0].update(colour="red"), "colour"),
    ],
)
def test_the_schema_catches_what_an_editor_should_flag(
    schema: dict[str, Any], change: Callable[[dict[str, Any]], Any], schema_path: str
) -> None:
    data = demo_catalog_data()
    change(data)
    errors = list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    assert errors and any(schema_path in e.message or schema_path in e.path for e in errors)


MISTAKES: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    (
        "duplicate package slug",
        lambda d: d["packages"][1].update(slug="vip"),
        "packages[1] (id 2 \"MVP\").slug: duplicate slug 'vip' (also packages[0])",
    ),
    (
        "duplicate category slug",
        lambda d: d["categories"][2].update(slug="items"),
        "categories[2] (id 3 \"Crates\").slug: duplicate slug 'items' (also categories[1])",
    ),
    (
        "coupon naming a missing package",
        lambda d: d["coupons"][1]["effective"].update(packages=[99]),
        'coupons[1] (id 2 "SWORD1").effective.packages[0]: package 99 is not in the catalog',
    ),
    (
        "sale naming a missing category",
        lambda d: d["sales"][0]["effective"].update(categories=[42]),
        'sales[0] (id 1 "Crate week").effective.categories[0]: category 42 is not in the catalog',
    ),
    (
        "subscription without a period",
        lambda d: d["packages"][0].pop("expiry_length"),
        'packages[0] (id 1 "VIP").expiry_length: a subscription needs a period: expiry_length 1 or more',
    ),
    ("store without a currency", lambda d: d["store"].pop("currency"), "store.currency: required"),
    (
        "Bedrock names with a prefix and without one",
        lambda d: d["store"].update(bedrock_prefix=".", bedrock_unprefixed=True),
        "store.bedrock_unprefixed: Value error, Floodgate has one username-prefix: set either"
        " bedrock_prefix (Bedrock names start with it) or bedrock_unprefixed (they do not), the one"
        " your proxy uses",
    ),
    (
        "Bedrock prefix with a space",
        lambda d: d["store"].update(bedrock_prefix="BE "),
        "store.bedrock_prefix: Value error, 'BE ' is not a Floodgate username-prefix here: 1 to 8"
        ' printable ASCII characters (letters, digits, symbols such as . or _), no space; "" for none',
    ),
    (
        "Bedrock prefix too long",
        lambda d: d["store"].update(bedrock_prefix="bedrock__"),
        "store.bedrock_prefix: Value error, 'bedrock__' is not a Floodgate username-prefix here: 1 to 8"
        ' printable ASCII characters (letters, digits, symbols such as . or _), no space; "" for none',
    ),
    (
        "negative price",
        lambda d: d["packages"][3].update(price="-5"),
        'packages[3] (id 11 "1,000 Coins").price: Input should be greater than or equal to 0',
    ),
]


def write_catalog(tmp_path: Path, change: Callable[[dict[str, Any]], Any]) -> Path:
    data = demo_catalog_data()
    data["store"] = dict(data["store"])
    change(data)
    path = tmp_path / "store.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(("mistake", "change", "expected"), MISTAKES, ids=[m[0] for m in MISTAKES])
def test_import_refuses_each_mistake_naming_the_element(
    tmp_path: Path, mistake: str, change: Callable[[dict[str, Any]], Any], expected: str
) -> None:
    path = write_catalog(tmp_path, change)
    result = webstore("import", str(path), "--table", "unused")
    assert result.returncode == 2
    assert result.stderr == f"webstore import: {path}: {expected}\n"
    assert result.stdout == ""


def test_every_mistake_is_listed_at_once(tmp_path: Path) -> None:
    def two_mistakes(d: dict[str, Any]) -> None:
        d["packages"][0]["price"] = "-1"
        d["packages"][2]["name"] = ""

    result = webstore("import", str(write_catalog(tmp_path, two_mistakes)), "--table", "unused")
    lines = result.stderr.splitlines()
    assert len(lines) == 2
    assert '(id 1 "VIP").price' in lines[0] and '(id 10 "diamond-sword").name' in lines[1]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('{"store": {', "is not valid JSON: line 1 column 12"),
        ("[1, 2]", "the top level must be a JSON object"),
        (None, "no catalog file at"),
    ],
)
def test_unreadable_files_are_one_line(tmp_path: Path, content: str | None, expected: str) -> None:
    path = tmp_path / "store.json"
    if content is not None:
        path.write_text(content)
    result = webstore("import", str(path), "--table", "unused")
    assert result.returncode == 2
    assert len(result.stderr.splitlines()) == 1 and expected in result.stderr


def test_serve_prints_the_same_lines_as_import_and_no_traceback(tmp_path: Path) -> None:
    path = write_catalog(tmp_path, MISTAKES[2][1])
    imported = webstore("import", str(path), "--table", "unused")
    served = webstore("serve", "--catalog", str(path), "--storefront-port", "0", "--operator-port", "0")
    assert served.returncode == 2
    assert "Traceback" not in served.stderr
    assert served.stderr.replace("webstore serve:", "webstore import:") == imported.stderr
    assert "ready" not in served.stdout
