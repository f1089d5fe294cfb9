"""The hosted pages' one renderer (auth page, checkout, receipt, and every error page). HTTP-free.

Every value is HTML-escaped unless it is a `Safe` fragment rendered here. Pages load nothing
external: their one stylesheet is inline and allowed by its hash in the Content-Security-Policy,
everything else is denied (no scripts at all). A page use case returns a `PageResult`; the
handler turns it into a response (functions/pages.py), and a domain error into `problem_page`.
"""

from __future__ import annotations

import base64
import hashlib
import html
from dataclasses import dataclass
from string import Template
from urllib.parse import urlsplit


class Safe(str):
    """Already rendered HTML: inserted as is."""


def fill(template: Template, **values: str | Safe) -> Safe:
    """The template with its values, each escaped unless `Safe`."""
    return Safe(template.substitute({k: v if isinstance(v, Safe) else escape(v) for k, v in values.items()}))


def escape(text: str) -> str:
    return html.escape(text, quote=True)


@dataclass(frozen=True)
class PageResult:
    """What a page use case answers: an HTML page with a status, or a 303 redirect. `csp`: the
    page's own policy when it differs from the route's (a form that redirects to a return URL)."""

    status: int = 200
    html: str = ""
    redirect: str | None = None
    csp: str | None = None


STYLE = """
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1d21;margin:0}
main{max-width:34rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;
box-shadow:0 1px 4px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #767676;
border-radius:.3rem}
input:focus,button:focus{outline:3px solid #1a5fb4;outline-offset:2px}
.help{color:#4a4d55;font-size:.9rem;margin:.3rem 0 1rem}
.error{color:#a4000f;font-weight:600}
button{background:#1a5fb4;color:#fff;border:0;padding:.7rem 1.2rem;font-size:1rem;border-radius:.3rem;
cursor:pointer}
table{width:100%;border-collapse:collapse}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left}
td.n,th.n{text-align:right}.total td{font-weight:700}
"""
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()

_PAGE = Template("""<!doctype html>
<html lang="$lang">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title</title>
<style>$style</style>
</head>
<body>
<main>
$content
</main>
</body>
</html>
""")

_PROBLEM = Template('<h1>$title</h1>\n<p id="message" role="alert">$message</p>\n$link')
_LINK = Template('<p><a id="continue" href="$href">$text</a></p>')


def page(title: str, content: Safe, lang: str = "en") -> str:
    """The one document every hosted page is: `content` inside the common frame and style."""
    return str(fill(_PAGE, lang=lang or "en", title=title, style=Safe(STYLE), content=content))


def problem_page(
    title: str, message: str, *, lang: str = "en", link: str | None = None, link_text: str = ""
) -> str:
    """A page that explains why there is nothing to do here (the error path of every page)."""
    anchor = fill(_LINK, href=link, text=link_text) if link else Safe("")
    return page(title, fill(_PROBLEM, title=title, message=message, link=anchor), lang)


def content_security_policy(*form_targets: str) -> str:
    """Strict CSP. Browsers apply `form-action` to the redirect after a POST too, so the places
    a form may end up (a checked return URL's origin, or `http:`/`https:` for the checkout,
    whose return URLs are checked when the basket is made) are allowed there, and nowhere else."""
    allowed = " ".join(["'self'", *(_origin(t) for t in form_targets)])
    return (
        f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; form-action {allowed}; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def _origin(target: str) -> str:
    if target.endswith(":"):  # a scheme source such as "https:"
        return target
    parts = urlsplit(target)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}"
