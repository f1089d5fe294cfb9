"""The panel's static assets (vendored, pinned, licence beside them: static/README.md), read
once per process and served with a long cache lifetime: a new version is a new deployment."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from webstore.errors import NotFound

STATIC = Path(__file__).resolve().parent / "static"
# name -> media type: only these are served (never a path the request made up).
ASSETS = {
    "htmx.min.js": "text/javascript; charset=utf-8",
    "htmx.LICENSE": "text/plain; charset=utf-8",
}


@dataclass(frozen=True)
class Asset:
    body: bytes
    media_type: str


@cache
def asset(name: str) -> Asset:
    media_type = ASSETS.get(name)
    if media_type is None:
        raise NotFound(f"No static file named {name}")
    return Asset((STATIC / name).read_bytes(), media_type)
