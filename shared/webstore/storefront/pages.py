"""What is left of the hosted pages' former renderer while the panel moves to `webstore.html`:
`Safe`/`fill` (string templates, still used by the panel's not yet converted pages, see
tests/unit/test_no_html_strings.py) and re-exports of what moved to the toolkit. New pages
render templates with `webstore.html.render` / `webstore.html.player.page`.
"""

from __future__ import annotations

import html
from string import Template
from typing import TYPE_CHECKING, Any

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


class _MarkupLike(type):
    """`isinstance(x, Safe)` is true of any already rendered HTML: a `Safe`, or a
    `webstore.html.Markup` (the shell's widgets, converted pages' bodies)."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return hasattr(instance, "__html__")


if TYPE_CHECKING:
    # While the panel moves to templates, `Safe` and `Markup` go wherever the other goes
    # (PanelPage.body is Markup); a Jinja template inserts either as is.
    from webstore.html import Markup as Safe
else:

    class Safe(str, metaclass=_MarkupLike):
        """Already rendered HTML: inserted as is (by `fill` and by a Jinja template)."""

        def __html__(self) -> str:
            return str(self)


def fill(template: Template, **values: str | Safe) -> Safe:
    """The template with its values, each escaped unless already rendered HTML (`Safe`, `Markup`)."""
    return Safe(template.substitute({k: v if isinstance(v, Safe) else escape(v) for k, v in values.items()}))


def escape(text: str) -> str:
    return html.escape(text, quote=True)
