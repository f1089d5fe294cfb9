"""A form-encoded body's fields: what every page's form handler reads, apart from the pages'
rendering (functions.pages) so that a shop page loads only what it uses."""

from __future__ import annotations

from urllib.parse import parse_qs

from fastapi import Request


async def form_fields(request: Request, max_fields: int = 10) -> dict[str, str]:
    """The first value of each field of a form-encoded body (python-multipart is not needed
    for a handful of fields); a body with more fields than allowed reads as empty."""
    raw = (await request.body()).decode("utf-8", errors="replace")
    try:
        parsed = parse_qs(raw, keep_blank_values=True, max_num_fields=max_fields)
    except ValueError:
        return {}
    return {name: values[0] for name, values in parsed.items() if values}
