"""What the payments, subscriptions and players pages share: money, instants, links, forms.

Every value is escaped unless it is a `Safe` fragment built here (webstore.storefront.pages):
player names, e-mails, variables, custom data, notes and reasons are player or staff input.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import datetime
from decimal import Decimal
from string import Template
from urllib.parse import quote, urlencode

from webstore.admin.flow import PanelPage
from webstore.errors import DomainError
from webstore.money import round_money
from webstore.storefront.pages import Safe, escape, fill


def money(amount: Decimal, currency: str) -> str:
    return f"{round_money(amount, currency)} {currency}"


def when(moment: datetime | None) -> str:
    return moment.strftime("%Y-%m-%d %H:%M UTC") if moment else "—"


def path(*parts: str) -> str:
    """A panel path from its segments, each percent-encoded (names may hold anything)."""
    return "/" + "/".join(quote(part, safe="") for part in parts)


def with_query(base: str, query: Mapping[str, str]) -> str:
    return f"{base}?{urlencode(dict(query))}" if query else base


def link(href: str, text: str) -> Safe:
    return fill(Template('<a href="$href">$text</a>'), href=href, text=text)


def rows(cells: list[list[str | Safe]]) -> Safe:
    """Table rows; each cell escaped unless Safe."""
    return Safe(
        "".join(
            "<tr>" + "".join(f"<td>{c if isinstance(c, Safe) else escape(c)}</td>" for c in row) + "</tr>"
            for row in cells
        )
    )


def table(headings: list[str], body: Safe, *, empty: str) -> Safe:
    if not body:
        return fill(Template('<p class="empty">$empty</p>'), empty=empty)
    head = "".join(f'<th scope="col">{escape(h)}</th>' for h in headings)
    return Safe(
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
    )


def facts(pairs: list[tuple[str, str | Safe]]) -> Safe:
    """A definition list of label → value."""
    return Safe(
        "<dl>"
        + "".join(
            f"<dt>{escape(label)}</dt><dd>{value if isinstance(value, Safe) else escape(value)}</dd>"
            for label, value in pairs
        )
        + "</dl>"
    )


def custom_data(value: Mapping[str, object] | None) -> str:
    """A payment's custom data as the text it is (shown in <pre>, escaped by the caller)."""
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True, default=str) if value else ""


_FORM = Template(
    '<form method="post" action="$action" class="$css">$csrf$fields'
    '<button type="submit" class="$button">$label</button></form>'
)


def post_form(
    action: str, label: str, csrf: Safe, fields: Safe = Safe(""), *, css: str = "inline", danger: bool = False
) -> Safe:
    """A state-changing form (POST, the session's CSRF field in it); `danger`: a red button for
    what cannot be undone."""
    button = "danger" if danger else ""
    return fill(_FORM, action=action, label=label, csrf=csrf, fields=fields, css=css, button=button)


def hidden(name: str, value: str) -> Safe:
    return fill(Template('<input type="hidden" name="$name" value="$value">'), name=name, value=value)


def text_input(name: str, label: str, value: str = "", *, kind: str = "text", hint: str = "") -> Safe:
    return fill(
        Template(
            '<label for="$name">$label</label>'
            '<input id="$name" name="$name" type="$kind" value="$value" placeholder="$hint">'
        ),
        name=name,
        label=label,
        value=value,
        kind=kind,
        hint=hint,
    )


def notice(text: str, *, css: str = "done") -> Safe:
    return fill(Template('<p class="$css" role="status">$text</p>'), text=text, css=css) if text else Safe("")


def titled(title: str, body: Safe, section: str, *, error: DomainError | None = None) -> PanelPage:
    """A page headed by its title; with `error`, why its form was refused above the body, at
    the refusal's status."""
    if error is None:
        return PanelPage(title, Safe(f"<h1>{escape(title)}</h1>" + body), section)
    shown = Safe(f"<h1>{escape(title)}</h1>" + notice(error.detail, css="error") + body)
    return PanelPage(title, shown, section, error.status)
