"""The control panel's shell: every page is `panel_page(...)` — header, navigation (only the
sections the role may see), the content, one inline stylesheet allowed by its hash and htmx from
`/static/htmx.min.js` (CSP: script-src 'self'; nothing from elsewhere).

Mobile first: on a narrow screen the navigation is folded behind a "Menu" toggle (a checkbox and
its label, no script needed)
above the content; from 52rem it is a sidebar.
"""

from __future__ import annotations

from dataclasses import dataclass
from string import Template
from typing import Protocol
from urllib.parse import quote

from webstore.admin.roles import Capability, HasRole, allowed
from webstore.admin.route_capabilities import PAGE_CAPABILITIES
from webstore.storefront.pages import Page, Safe, escape, fill, style_hash


@dataclass(frozen=True)
class Section:
    key: str
    label: str
    href: str

    @property
    def capability(self) -> Capability:
        """What opening the section's page requires: its route's declaration."""
        return PAGE_CAPABILITIES[self.href]


# The panel's sections in navigation order; pages name theirs as `section=` (the key). A role
# sees the sections whose page it may open (the page's route declares what that takes).
SECTIONS = (
    Section("dashboard", "Dashboard", "/"),
    Section("golive", "Go live", "/go-live"),
    Section("payments", "Payments", "/payments"),
    Section("subscriptions", "Subscriptions", "/subscriptions"),
    Section("players", "Players", "/players"),
    Section("catalog", "Catalog", "/catalog"),
    Section("servers", "Servers", "/servers"),
    Section("queue", "Command queue", "/queue"),
    Section("webhooks", "Webhooks", "/webhooks"),
    Section("settings", "Settings", "/settings"),
    Section("audit", "Audit log", "/audit"),
    Section("staff", "Staff", "/staff"),
)

STYLE = """
:root{--brand:#1a5fb4;--ink:#1b1d21;--muted:#4a4d55;--line:#d9dce1;--bg:#f4f5f7;--ok:#1d6b32;
--bad:#a4000f}
*{box-sizing:border-box}
body{font-family:system-ui,sans-serif;background:var(--bg);color:var(--ink);margin:0;
line-height:1.45}
a{color:var(--brand)}
header.top{background:#14181f;color:#fff;display:flex;align-items:center;gap:1rem;padding:.6rem 1rem;
flex-wrap:wrap}
header.top strong{font-size:1.05rem}header.top a{color:#fff}
header.top .who{margin-left:auto;font-size:.9rem;color:#c9ccd3}
header.top form{margin:0}header.top button{background:transparent;border:1px solid #59606b;color:#fff;
padding:.3rem .7rem;font-size:.9rem}
.shell{display:block}
nav.sections{background:#fff;border-bottom:1px solid var(--line)}
nav.sections .toggle{position:absolute;opacity:0;width:1px;height:1px}
nav.sections label.menu{display:block;margin:0;padding:.7rem 1rem;font-weight:600;cursor:pointer}
nav.sections .toggle:focus-visible+label.menu{outline:3px solid var(--brand)}
nav.sections ul{list-style:none;margin:0;padding:0 0 .5rem;display:none}
nav.sections .toggle:checked~ul{display:block}
nav.sections a{display:block;padding:.55rem 1rem;text-decoration:none;color:var(--ink)}
nav.sections a[aria-current=page]{background:#e6eefa;color:var(--brand);font-weight:700;
border-left:4px solid var(--brand)}
main{background:#fff;padding:1.2rem 1rem 2rem;min-width:0}
h1{font-size:1.35rem;margin:0 0 1rem}h2{font-size:1.1rem;margin:1.5rem 0 .7rem}
label{display:block;font-weight:600;margin:.8rem 0 .3rem}
input,select,textarea,button{font:inherit}
input,select,textarea{width:100%;max-width:32rem;padding:.55rem;border:1px solid #767676;
border-radius:.3rem}
input[type=checkbox]{width:auto}
button,.button{background:var(--brand);color:#fff;border:0;padding:.6rem 1.1rem;border-radius:.3rem;
cursor:pointer;text-decoration:none;display:inline-block}
button.danger{background:var(--bad)}
button.plain{background:#fff;color:var(--brand);border:1px solid var(--line)}
input:focus,select:focus,textarea:focus,button:focus,a:focus{outline:3px solid var(--brand);
outline-offset:2px}
table{width:100%;border-collapse:collapse;font-size:.95rem}
td,th{padding:.45rem;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
.scroll{overflow-x:auto}
.help{color:var(--muted);font-size:.9rem}
.error{color:var(--bad);font-weight:600}
.done{background:#e7f4ea;color:var(--ok);padding:.6rem .8rem;border-radius:.3rem;font-weight:600}
.secret{background:#fff8e1;border:1px solid #e0b400;padding:.8rem;border-radius:.3rem}
.secret code{font-size:1.05rem;overflow-wrap:anywhere}
.cards{display:grid;gap:1rem;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr))}
.card{border:1px solid var(--line);border-radius:.4rem;padding:.9rem}
.card a{font-weight:600}
.inline{display:inline}
.figures{grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));margin:0}
.figures dt{color:var(--muted);font-size:.9rem}.figures dd{margin:0;font-size:1.25rem;font-weight:700}
figure.chart{margin:1rem 0}figure.chart figcaption{font-weight:600}
.axis{color:var(--muted);font-size:.85rem;margin:.2rem 0 0}p.figure{font-size:1.6rem;font-weight:700;margin:0}
.login{max-width:26rem;margin:3rem auto;background:#fff;padding:1.8rem;border-radius:.5rem;
box-shadow:0 1px 4px rgba(0,0,0,.15)}
@media (min-width:52rem){
.shell{display:grid;grid-template-columns:14rem minmax(0,1fr);min-height:calc(100vh - 3rem)}
nav.sections label.menu{display:none}
nav.sections ul{display:block}
nav.sections{border-bottom:0;border-right:1px solid var(--line)}
main{padding:1.5rem 2rem 3rem;background:var(--bg)}
main>*{max-width:72rem}}
"""
STYLE_HASH = style_hash(STYLE)
SCRIPT = "/static/htmx.min.js"
# No inline styles (the policy allows the one stylesheet by hash), no eval, no scripts in swaps.
# Progressive enhancement (htmx): links and GET forms inside an element with these attributes
# fetch their page in the background and swap only its content (the URL still changes, and
# without JavaScript they are plain links and forms): the dashboard's ranges, the searches.
SWAP_CONTENT = Safe('hx-boost="true" hx-target="#content" hx-select="#content" hx-swap="outerHTML"')
HTMX_CONFIG = '{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'

_SHELL = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta name="htmx-config" content='$htmx_config'>
<title>$title · $store</title>
<style>$style</style>
<script src="$script" defer></script>
</head>
<body>
<header class="top"><strong>$store</strong>
<span class="who"><a href="/account" id="account">$email</a> · $role</span>
<form method="post" action="/logout">$csrf<button type="submit" id="logout">Log out</button></form></header>
<div class="shell">
<nav class="sections" aria-label="Sections"><input type="checkbox" id="menu" class="toggle">
<label for="menu" class="menu">Menu</label><ul>
$nav</ul></nav>
<main id="content">
$done$body
</main>
</div>
</body>
</html>
""")

_BARE = Template("""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title</title>
<style>$style</style>
</head>
<body>
<main class="login">
$body
</main>
</body>
</html>
""")

_NAV_ITEM = Template('<li><a href="$href"$current>$label</a></li>\n')
_CSRF = Template('<input type="hidden" name="csrf" value="$token">')
_DONE = Template('<p class="done" role="status">$message</p>\n')


class PanelIdentity(HasRole, Protocol):
    """What the shell shows of the signed-in member (a `StaffSession` is one)."""

    @property
    def email(self) -> str: ...

    @property
    def csrf_token(self) -> str: ...


def content_security_policy() -> str:
    """Scripts from the panel itself only (htmx), the one stylesheet by hash, forms to itself."""
    return (
        f"default-src 'none'; script-src 'self'; style-src 'sha256-{STYLE_HASH}'; "
        "img-src 'self' https: data:; connect-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def csrf_field(session: PanelIdentity) -> Safe:
    """The hidden CSRF input every form of the panel carries (checked by `FormDep`)."""
    return fill(_CSRF, token=session.csrf_token)


def navigation(session: HasRole, section: str) -> Safe:
    items = "".join(
        fill(
            _NAV_ITEM,
            href=s.href,
            label=s.label,
            current=Safe(' aria-current="page"') if s.key == section else Safe(""),
        )
        for s in SECTIONS
        if allowed(session.role, s.capability)
    )
    return Safe(items)


def panel_page(
    title: str,
    body: Safe,
    *,
    session: PanelIdentity,
    section: str,
    store: str = "Control panel",
    done: str = "",
) -> Page:
    """A panel page: `body` inside the shell. `done`: a confirmation shown above the content
    (pages pass `?done=` through after a Post/Redirect/Get)."""
    html = fill(
        _SHELL,
        title=title,
        store=store or "Control panel",
        style=Safe(STYLE),
        script=SCRIPT,
        htmx_config=HTMX_CONFIG,
        email=session.email,
        role=session.role.label,
        csrf=csrf_field(session),
        nav=navigation(session, section),
        done=fill(_DONE, message=done) if done else Safe(""),
        body=body,
    )
    return Page.with_policy(str(html), content_security_policy())


def bare_page(title: str, body: Safe) -> Page:
    """A page outside the shell (sign-in, errors before a session): same style and policy."""
    return Page.with_policy(
        str(fill(_BARE, title=title, style=Safe(STYLE), body=body)), content_security_policy()
    )


_PROBLEM = Template(
    '<h1>$title</h1>\n<p id="message" role="alert">$message</p>\n'
    '<p><a id="continue" href="$href">$link</a></p>'
)


def problem(title: str, message: str, *, href: str = "/", link: str = "Back to the dashboard") -> Page:
    """The panel's error page (403 for a role, 404, 409 …)."""
    return bare_page(title, fill(_PROBLEM, title=title, message=message, href=href, link=link))


def login_location(next_path: str) -> str:
    """Where a request without a session goes: the sign-in page, then back to `next_path`."""
    target = safe_next(next_path)
    return "/login" if target == "/" else f"/login?next={quote(target, safe='/')}"


def safe_next(value: str | None) -> str:
    """A path of the panel to return to after sign-in; anything else (another site, a scheme,
    `//host`, a backslash trick) is the dashboard."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return "/"
    if any(ord(c) < 32 for c in value):
        return "/"
    return value


__all__ = ["SECTIONS", "SWAP_CONTENT", "Safe", "bare_page", "csrf_field", "escape", "panel_page", "problem"]
