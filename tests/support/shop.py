"""A player's browser of the shop, through the handlers under moto: it keeps the cookies the
shop sets (basket, player, CSRF token) and posts forms with the page's CSRF token."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl

from tests.support.invocation import invoke
from tests.support.lambda_events import Response
from tests.support.panel import csrf_of, form_body


@dataclass
class ShopClient:
    cookies: dict[str, str] = field(default_factory=dict)
    source_ip: str = "198.51.100.23"
    last: Response | None = field(default=None, repr=False)

    def _headers(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        jar = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        return {**({"cookie": jar} if jar else {}), **(extra or {})}

    def _keep(self, response: Response) -> Response:
        for each in response.cookies:
            pair, _, attributes = each.partition(";")
            name, _, value = pair.partition("=")
            if "max-age=0" in attributes.lower() or "expires=thu, 01 jan 1970" in attributes.lower():
                self.cookies.pop(name, None)
            else:
                self.cookies[name] = value.strip('"')
        self.last = response
        return response

    def get(self, handler: Any, path: str) -> Response:
        path, _, query = path.partition("?")
        response = invoke(
            handler, "GET", path, query=dict(parse_qsl(query)) or None, headers=self._headers(),
            source_ip=self.source_ip,
        )  # fmt: skip
        return self._keep(response)

    @property
    def csrf(self) -> str:
        return self.cookies.get("shop_csrf", "")

    def post(self, handler: Any, path: str, fields: dict[str, str], *, csrf: str | None = None) -> Response:
        """A form post carrying the visitor's CSRF token (or `csrf`; '' sends none)."""
        token = self.csrf if csrf is None else csrf
        body = form_body({**({"csrf": token} if token else {}), **fields})
        response = invoke(
            handler, "POST", path, raw_body=body["raw_body"], headers=self._headers(body["headers"]),
            source_ip=self.source_ip,
        )  # fmt: skip
        return self._keep(response)


__all__ = ["ShopClient", "csrf_of"]
