"""What is left of the hosted pages' former renderer while the panel moves to `webstore.html`:
`Safe`/`fill` (string templates, still used by the panel's not yet converted pages, see
tests/unit/test_no_html_strings.py) and re-exports of what moved to the toolkit. New pages
render templates with `webstore.html.render` / `webstore.html.player.page`.
"""

from __future__ import annotations

import html
from string import Template

from webstore.html import Page, PageResult
from webstore.html.player import (
    content_security_policy,
    problem_page,
    style_hash,
)

__all__ = [
    "Page",
    "PageResult",
    "Safe",
    "content_security_policy",
    "escape",
    "fill",
    "problem_page",
    "style_hash",
]


class Safe(str):
    """Already rendered HTML: inserted as is."""


def fill(template: Template, **values: str | Safe) -> Safe:
    """The template with its values, each escaped unless `Safe`."""
    return Safe(template.substitute({k: v if isinstance(v, Safe) else escape(v) for k, v in values.items()}))


def escape(text: str) -> str:
    return html.escape(text, quote=True)
