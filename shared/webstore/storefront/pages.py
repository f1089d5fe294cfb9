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
    stylesheet,
    stylesheet_hash,
)

__all__ = [
    "STYLE",
    "STYLE_HASH",
    "Page",
    "PageResult",
    "Safe",
    "content_security_policy",
    "escape",
    "fill",
    "page",
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


STYLE = stylesheet()
STYLE_HASH = stylesheet_hash()

_PAGE = Template("""<!doctype html>
<html lang="$lang">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title</title>
<style>$style</style>$theme
</head>
<body>
$header<main$main_class>
$content
</main>
</body>
</html>
""")


def page(
    title: str,
    content: Safe,
    lang: str = "en",
    *,
    theme: str = "",
    header: Safe = Safe(""),
    width: str = "",
) -> str:
    """The one document every hosted page is: `content` inside the common frame and style.
    `theme`: a store's colours (`theme_style`), a second stylesheet the page's policy must
    allow by hash; `header`: a banner above the main box; `width`: "wide" (a two-column page)
    or "medium" (a wider single column) instead of the narrow form box."""
    return str(
        fill(
            _PAGE,
            lang=lang or "en",
            title=title,
            style=Safe(STYLE),
            theme=Safe(f"\n<style>{theme}</style>") if theme else Safe(""),
            header=header,
            main_class=Safe(f' class="{width}"') if width in ("wide", "medium") else Safe(""),
            content=content,
        )
    )
