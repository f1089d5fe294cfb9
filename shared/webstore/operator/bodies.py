"""Request bodies plugins send as JSON or, from the legacy plugin, form-encoded: one parser.

The official plugin and the C# SDK send JSON; BuycraftX sends `application/x-www-form-urlencoded`
for the same calls (docs/compatibility.md). Either is read into the same model; a value that
does not fit is a 422 naming the field.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar
from urllib.parse import parse_qsl

from pydantic import BaseModel, ValidationError

from webstore import json_body
from webstore.errors import Invalid

M = TypeVar("M", bound=BaseModel)


def body_fields(body: bytes, content_type: str) -> dict[str, Any]:
    """The body's fields: a JSON object, or form fields (`name[]` repeated → a list)."""
    text = body.decode("utf-8", errors="replace").strip()
    if not text:
        return {}
    if "json" in content_type or text.lstrip("\ufeff")[:1] in ("{", "["):
        try:
            parsed = json_body.loads(body)
        except ValueError as error:
            reason = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
            raise Invalid(f"The body is not valid JSON: {reason}", field="body") from error
        if not isinstance(parsed, dict):
            raise Invalid("The body must be a JSON object", field="body")
        return parsed
    fields: dict[str, Any] = {}
    for name, value in parse_qsl(text, keep_blank_values=True):
        if name.endswith("[]"):
            fields.setdefault(name[:-2], []).append(value)
        else:
            fields[name] = value
    return fields


def parse_body(body: bytes, content_type: str, model: type[M]) -> M:
    """The body as `model`; Invalid naming the first field at fault."""
    try:
        return model.model_validate(body_fields(body, content_type))
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "body"
        raise Invalid(f"{field}: {first.get('msg', 'invalid')}", field=field) from None
