"""Reading a catalog file: its JSON Schema, and every mistake in it as one line naming the element.

A mistake names its path and the element by id and name (`packages[3] (id 12 "Pet Unlock").price:
…`), not by list index alone: an operator finds it in the file by what it is. `webstore import`
and `webstore serve --catalog` print the same lines.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from webstore.catalog_import import FILLED_IN, CatalogFile, Location, StaleCatalog, _with_timestamps

# What names an element in a message, first found first (codes and slugs where there is no name).
LABELS = ("name", "title", "code", "slug")
SCHEMA_ID = "https://webstore.invalid/catalog.schema.json"


class CatalogError(ValueError):
    """Every problem of one catalog file, one line each."""

    def __init__(self, problems: Sequence[str]) -> None:
        super().__init__("\n".join(problems))
        self.problems = list(problems)


def load_catalog(path: Path) -> CatalogFile:
    """The file parsed and checked, or CatalogError listing what is wrong with it."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CatalogError([f"no catalog file at {path}: check the path"]) from None
    except (OSError, UnicodeDecodeError) as error:
        raise CatalogError([f"{path}: cannot be read ({error})"]) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CatalogError(
            [f"{path} is not valid JSON: line {error.lineno} column {error.colno}: {error.msg}"]
        ) from None
    return check_catalog(data, source=str(path))


def stale_lines(stale: StaleCatalog, source: str, command: str) -> list[str]:
    """What `webstore import` (or `serve`) prints when a file is older than the store: why, the
    difference importing it would make, one line an element, and how to go on."""
    return [
        f"{source}: {stale}. Importing it would: {stale.changes.summary()}",
        *(f"  {line}" for line in stale.changes.details),
        "Nothing was written. Export the store again (`webstore export`) and make your change in "
        f"that file, or apply this file as it is, over the changes since: `{command} --force`.",
    ]


def check_catalog(data: Any, source: str = "catalog") -> CatalogFile:
    """Validate a catalog document (already parsed JSON)."""
    if not isinstance(data, dict):
        raise CatalogError([f"{source}: the top level must be a JSON object with a `store` section"])
    try:
        catalog = CatalogFile.model_validate(_with_timestamps(data))
    except ValidationError as error:
        raise CatalogError(
            [
                f"{source}: {describe(data, tuple(e['loc']))}: {_message(e)}"
                for e in error.errors(include_url=False)
            ]
        ) from None
    problems = catalog.problems()
    if problems:
        raise CatalogError([f"{source}: {describe(data, where)}: {message}" for where, message in problems])
    return catalog


def _message(error: Any) -> str:
    if error["type"] == "missing":
        return "required"
    if error["type"] == "extra_forbidden":
        return "unknown field (see `webstore catalog schema`)"
    return str(error["msg"])


def describe(data: Any, location: Location) -> str:
    """`packages[3] (id 12 "Pet Unlock").commands[0].server_id`: each list element named by what
    it is, when it has an id or a name."""
    text = ""
    node = data
    for step in location:
        if isinstance(step, int):
            text += f"[{step}]"
            node = node[step] if isinstance(node, list) and step < len(node) else None
            label = _label(node)
            if label:
                text += f" ({label})"
        else:
            text += f".{step}" if text else str(step)
            node = node.get(step) if isinstance(node, dict) else None
    return text or "(top level)"


def _label(element: Any) -> str:
    if not isinstance(element, dict):
        return ""
    parts = [f"id {element['id']}"] if isinstance(element.get("id"), int | str) else []
    name = next((element[k] for k in LABELS if isinstance(element.get(k), str) and element[k]), None)
    if name is not None:
        parts.append(json.dumps(name))
    return " ".join(parts)


def catalog_schema() -> dict[str, Any]:
    """The catalog file's JSON Schema, generated from the models (fields added to them appear by
    themselves). What the import fills in (timestamps, a gift card's starting balance) is optional."""
    schema = CatalogFile.model_json_schema(by_alias=True, mode="validation")
    definitions = schema.get("$defs", {})
    for section, names in FILLED_IN.items():
        items = schema["properties"][section]["items"]
        target = definitions[items["$ref"].rsplit("/", 1)[-1]] if "$ref" in items else items
        target["required"] = [n for n in target.get("required", []) if n not in names]
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "Webstore catalog file",
        "description": "A store's catalog: `webstore import FILE` or `webstore serve --catalog FILE`.",
        **{k: v for k, v in schema.items() if k not in ("title", "description")},
    }


def schema_text() -> str:
    """The schema as committed (shared/webstore/demo/catalog.schema.json): stable, diffable."""
    return json.dumps(catalog_schema(), indent=2, sort_keys=True) + "\n"
