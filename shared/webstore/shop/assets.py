"""The shop's static files, content-hashed: `/static/shop.3f2a9c1b.css` names one version of
one file, so browsers (and, in AWS, the CDN) may keep it for a year (`immutable`); a changed
file is a new name. Read once per process; only these files are served."""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path
from typing import NamedTuple

from webstore.errors import NotFound

STATIC = Path(__file__).resolve().parent / "static"
# The panel's vendored htmx (webstore/admin/static/README.md: version, licence): one copy.
HTMX = Path(__file__).resolve().parent.parent / "admin" / "static" / "htmx.min.js"
# Logical name → (file, media type, the key templates read it by: `assets.css`, `assets.js`, ...).
FILES: dict[str, tuple[Path, str, str]] = {
    "shop.css": (STATIC / "shop.css", "text/css; charset=utf-8", "css"),
    "htmx.js": (HTMX, "text/javascript; charset=utf-8", "htmx"),
    "shop.js": (STATIC / "shop.js", "text/javascript; charset=utf-8", "js"),
}
CACHE_CONTROL = "public, max-age=31536000, immutable"


class Asset(NamedTuple):
    name: str  # the hashed name, e.g. shop.3f2a9c1b.css
    body: bytes
    media_type: str
    key: str  # what templates call it (`assets.<key>`)


@cache
def assets() -> dict[str, Asset]:
    """Every asset by its hashed name."""
    found = {}
    for logical, (path, media_type, key) in FILES.items():
        body = path.read_bytes()
        stem, _, ext = logical.rpartition(".")
        name = f"{stem}.{hashlib.sha256(body).hexdigest()[:10]}.{ext}"
        found[name] = Asset(name, body, media_type, key)
    return found


@cache
def urls() -> dict[str, str]:
    """Each file's key (`css`, `htmx`, `js`) → its hashed URL, for the templates."""
    return {asset.key: f"/static/{asset.name}" for asset in assets().values()}


def asset(name: str) -> Asset:
    found = assets().get(name)
    if found is None:
        raise NotFound(f"No static file named {name}")
    return found
