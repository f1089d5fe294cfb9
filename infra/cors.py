"""CORS of the storefront interface: one policy, read by the CDK stack (API Gateway answers it)
and by the local stack (Starlette's middleware answers it), so a browser shop sees the same
headers on a laptop as in AWS. The operator interface has none: game servers are not browsers.

The allowed origins come from the CDK context `corsOrigins` (cdk.json, or `-c corsOrigins=…`;
comma-separated; default `*`); the local stack reads cdk.json's value, or `serve --cors-origins`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

CDK_JSON = Path(__file__).resolve().parent.parent / "cdk.json"
CONTEXT_KEY = "corsOrigins"
DEFAULT_ORIGINS = "*"
# Shops call the storefront interface from browsers, with Basic auth set by script.
ALLOW_HEADERS = ("Authorization", "Content-Type", "X-Requested-With")
ALLOW_METHODS = ("*",)  # any method (API Gateway: CorsHttpMethod.ANY)
MAX_AGE_SECONDS = 3600


@dataclass(frozen=True)
class CorsPolicy:
    allow_origins: tuple[str, ...]
    allow_methods: tuple[str, ...] = ALLOW_METHODS
    allow_headers: tuple[str, ...] = ALLOW_HEADERS
    max_age_seconds: int = MAX_AGE_SECONDS

    def middleware_options(self) -> dict[str, Any]:
        """Keyword arguments of starlette.middleware.cors.CORSMiddleware."""
        return {
            "allow_origins": list(self.allow_origins),
            "allow_methods": list(self.allow_methods),
            "allow_headers": list(self.allow_headers),
            "max_age": self.max_age_seconds,
            "allow_credentials": False,  # Basic auth goes in a header set by script, not a cookie
        }


def parse_origins(value: Any) -> tuple[str, ...]:
    """`corsOrigins` as given: a comma-separated string or a list; empty means the default."""
    if value is None or value == "" or value == []:
        value = DEFAULT_ORIGINS
    parts: Sequence[Any] = value if isinstance(value, list) else str(value).split(",")
    return tuple(str(o).strip() for o in parts if str(o).strip())


def storefront_policy(origins: Any = None) -> CorsPolicy:
    return CorsPolicy(parse_origins(origins))


def cdk_json_origins(path: Path = CDK_JSON) -> Any:
    """The `corsOrigins` the CDK app would read from cdk.json's context (None when unset)."""
    try:
        return json.loads(path.read_text()).get("context", {}).get(CONTEXT_KEY)
    except (OSError, ValueError):
        return None
