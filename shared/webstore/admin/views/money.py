"""What the payments, subscriptions and players pages share: money, instants and links as
their templates (templates/panel/) show them, and the one way such a body is rendered.

Every value is escaped by the templates (autoescape): player names, e-mails, variables, custom
data, notes and reasons are player or staff input.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from typing import Any
from urllib.parse import quote, urlencode

from webstore.admin.flow import PanelPage
from webstore.errors import DomainError
from webstore.html import Markup, fragment
from webstore.money import round_money


def money(amount: Decimal, currency: str) -> str:
    return f"{round_money(amount, currency)} {currency}"


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "—"


def path(*parts: str) -> str:
    """A panel path from its segments, each percent-encoded (names may hold anything)."""
    return "/" + "/".join(quote(part, safe="") for part in parts)


def with_query(base: str, query: Mapping[str, str]) -> str:
    return f"{base}?{urlencode(dict(query))}" if query else base


def custom_data(value: Mapping[str, object] | None) -> str:
    """A payment's custom data as the text it is (shown in <pre>, escaped by the template)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str) if value else ""


# What every body's template may call besides the toolkit's filters.
HELPERS: dict[str, Any] = {"money": money, "when": when, "path": path}


def body(template: str, /, **context: Any) -> Markup:
    """The body rendered from `template` (under templates/panel/) with `context` and HELPERS."""
    return fragment(template, **HELPERS, **context)


def titled(title: str, content: Markup, section: str, *, error: DomainError | None = None) -> PanelPage:
    """A page headed by its title; with `error`, why its form was refused under the heading,
    at the refusal's status."""
    shown = body("panel/titled.html", title=title, error=error.detail if error else None, body=content)
    return PanelPage(title, shown, section, error.status if error else 200)
