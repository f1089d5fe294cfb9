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


def style_hash(style: str) -> str:
    """What a policy's `style-src` names to allow an inline stylesheet."""
    return base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()


class Page(str):
    """A rendered document that needs its own policy (a store's theme, its images): a
    `PageResult` made from it carries that policy unless given another."""

    policy: str | None = None

    @classmethod
    def with_policy(cls, html: str, policy: str) -> Page:
        page = cls(html)
        page.policy = policy
        return page


@dataclass(frozen=True)
class PageResult:
    """What a page use case answers: an HTML page with a status, or a 303 redirect. `csp`: the
    page's own policy when it differs from the route's (a form that redirects to a return URL,
    a `Page` with a theme)."""

    status: int = 200
    html: str = ""
    redirect: str | None = None
    csp: str | None = None

    def __post_init__(self) -> None:
        if self.csp is None and isinstance(self.html, Page) and self.html.policy:
            object.__setattr__(self, "csp", self.html.policy)


STYLE = """
:root{--brand:#1a5fb4;--on-brand:#ffffff;--link:#1a5fb4;--accent:#1a5fb4;--line:#d9dce1;--muted:#4a4d55}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1d21;margin:0;line-height:1.45}
main{max-width:34rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;
box-shadow:0 1px 4px rgba(0,0,0,.15)}
main.wide,main.medium{max-width:64rem;margin:1.5rem auto 3rem;padding:1.5rem 2rem 2rem}
main.medium{max-width:44rem}
h1{font-size:1.4rem;margin-top:0}h2{font-size:1.1rem;margin:0 0 .8rem}
a{color:var(--link)}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}
input,button{font:inherit}
input{width:100%;padding:.6rem;border:1px solid #767676;border-radius:.3rem}
input[type=checkbox]{width:1.25rem;height:1.25rem;margin:.1rem .6rem 0 0;flex:none;accent-color:var(--brand)}
input:focus,button:focus,a:focus{outline:3px solid var(--accent);outline-offset:2px}
.help{color:var(--muted);font-size:.9rem;margin:.3rem 0 1rem}
.error{color:#a4000f;font-weight:600}
button{background:var(--brand);color:var(--on-brand);border:0;padding:.7rem 1.2rem;font-size:1rem;
border-radius:.3rem;cursor:pointer}
table{width:100%;border-collapse:collapse}td,th{padding:.4rem;border-bottom:1px solid #ddd;text-align:left}
td.n,th.n{text-align:right}.total td{font-weight:700}
.brand{background:var(--brand);color:var(--on-brand)}
.brand div{max-width:64rem;margin:0 auto;padding:.9rem 2rem;display:flex;align-items:center;gap:.8rem}
.brand img{height:2.5rem;width:auto;max-width:10rem;object-fit:contain;border-radius:.25rem}
.brand strong{font-size:1.2rem}.brand.medium div{max-width:44rem}
.who{margin:-.6rem 0 1.2rem;color:var(--muted)}
.cols{display:grid;gap:2rem}
@media (min-width:52rem){.cols{grid-template-columns:minmax(0,1.15fr) minmax(0,1fr)}}
.lines{list-style:none;margin:0;padding:0}
.lines li{display:flex;gap:.8rem;align-items:flex-start;padding:.8rem 0;border-bottom:1px solid var(--line)}
.thumb{width:3.5rem;height:3.5rem;flex:none;border-radius:.35rem;background:#e8eaee;object-fit:cover;
display:flex;align-items:center;justify-content:center;font-weight:700;color:#3c3f46}
.what{flex:1;min-width:0;overflow-wrap:anywhere}.what strong{display:block}
.meta{display:block;color:var(--muted);font-size:.9rem}
.amount{white-space:nowrap;font-variant-numeric:tabular-nums;font-weight:600}
.totals{margin-top:.6rem}.totals th{font-weight:400}.totals td{text-align:right;white-space:nowrap;
font-variant-numeric:tabular-nums}
.totals .off td{color:#1d6b32}
.totals .grand th,.totals .grand td{font-weight:700;border-top:2px solid #1b1d21}
.totals .due th,.totals .due td{font-weight:700;font-size:1.1rem;border-bottom:0}
.note{color:var(--muted);font-size:.9rem;margin:.6rem 0}
fieldset{border:1px solid var(--line);border-radius:.4rem;padding:.4rem 1rem 1rem;margin:1rem 0}
legend{font-weight:700;padding:0 .3rem}
.sub{border-left:4px solid var(--accent);background:#f7f8fa;padding:.8rem 1rem;margin:1rem 0;
border-radius:.3rem}
.sub dl{display:grid;grid-template-columns:auto 1fr;gap:.2rem .8rem;margin:.4rem 0}.sub dt{font-weight:600}
.sub dd{margin:0}.sub h2,.sub h3{margin:0 0 .5rem;font-size:1.05rem}
.consent{display:flex;align-items:flex-start;font-weight:400;margin:.8rem 0 0}
.pay button{width:100%;font-size:1.1rem;padding:.85rem}
.legal{font-size:.9rem;color:var(--muted)}
.paid{display:inline-block;background:#1d6b32;color:#fff;font-weight:700;padding:.2rem .7rem;
border-radius:1rem;letter-spacing:.04em}
code{overflow-wrap:anywhere}
@media (max-width:40rem){main,main.wide,main.medium{margin:0;border-radius:0;box-shadow:none;
padding:1.2rem 1rem 2rem}
.brand div{padding:.7rem 1rem}}
"""
STYLE_HASH = style_hash(STYLE)

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

_PROBLEM = Template('<h1>$title</h1>\n<p id="message" role="alert">$message</p>\n$link')
_LINK = Template('<p><a id="continue" href="$href">$text</a></p>')


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


def problem_page(
    title: str, message: str, *, lang: str = "en", link: str | None = None, link_text: str = ""
) -> str:
    """A page that explains why there is nothing to do here (the error path of every page)."""
    anchor = fill(_LINK, href=link, text=link_text) if link else Safe("")
    return page(title, fill(_PROBLEM, title=title, message=message, link=anchor), lang)


def content_security_policy(*form_targets: str, themes: tuple[str, ...] = (), images: bool = False) -> str:
    """Strict CSP. Browsers apply `form-action` to the redirect after a POST too, so the places
    a form may end up (a checked return URL's origin, or `http:`/`https:` for the checkout,
    whose return URLs are checked when the basket is made) are allowed there, and nowhere else.
    `themes`: further stylesheets of the page (a store's colours), allowed by their hashes;
    `images`: the page shows the store's images (logo, packages) from http(s) URLs."""
    allowed = " ".join(["'self'", *(_origin(t) for t in form_targets)])
    styles = " ".join(f"'sha256-{h}'" for h in (STYLE_HASH, *(style_hash(t) for t in themes)))
    img = "img-src https: http:; " if images else ""
    return (
        f"default-src 'none'; style-src {styles}; {img}form-action {allowed}; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def _origin(target: str) -> str:
    if target.endswith(":"):  # a scheme source such as "https:"
        return target
    parts = urlsplit(target)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}"
