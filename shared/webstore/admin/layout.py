"""The control panel's shell: every page is `panel_page(...)` — header, navigation (only the
sections the role may see), the content, one inline stylesheet allowed by its hash and htmx from
`/static/htmx.min.js` (CSP: script-src 'self'; nothing from elsewhere). The markup is
webstore.html's templates/panel/ (layout.html, bare.html; the widgets pages share in macros.html).

Mobile first: on a narrow screen the navigation is folded behind a "Menu" toggle (a checkbox and
its label, no script needed)
above the content; from 52rem it is a sidebar.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote

from webstore.admin.roles import Capability, HasRole, allowed
from webstore.admin.route_capabilities import PAGE_CAPABILITIES
from webstore.html import Markup, Page, asset_hash, fragment, macro, render


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
    Section("taxreport", "Tax report", "/tax-report"),
    Section("subscriptions", "Subscriptions", "/subscriptions"),
    Section("players", "Players", "/players"),
    Section("catalog", "Catalog", "/catalog"),
    Section("servers", "Servers", "/servers"),
    Section("queue", "Command queue", "/queue"),
    Section("webhooks", "Webhooks", "/webhooks"),
    Section("mail", "E-mails", "/mail"),
    Section("discord", "Discord", "/discord"),
    Section("settings", "Settings", "/settings"),
    Section("shop", "Shop", "/shop"),
    Section("audit", "Audit log", "/audit"),
    Section("staff", "Staff", "/staff"),
)

STYLESHEET = "panel/panel.css"  # under webstore.html's templates/, inlined by the shell
SCRIPT = "/static/htmx.min.js"
# No inline styles (the policy allows the one stylesheet by hash), no eval, no scripts in swaps.
# Progressive enhancement (htmx): links and GET forms inside an element with the attributes of
# `{{ swap_content() }}` (panel/macros.html) fetch their page in the background and swap only
# its content (the URL still changes, and without JavaScript they are plain links and forms):
# the dashboard's ranges, the searches.
HTMX_CONFIG = '{"includeIndicatorStyles":false,"allowEval":false,"allowScriptTags":false}'


class PanelIdentity(HasRole, Protocol):
    """What the shell shows of the signed-in member (a `StaffSession` is one)."""

    @property
    def email(self) -> str: ...

    @property
    def csrf_token(self) -> str: ...


def content_security_policy() -> str:
    """Scripts from the panel itself only (htmx), the one stylesheet by hash, forms to itself."""
    return (
        f"default-src 'none'; script-src 'self'; style-src 'sha256-{asset_hash(STYLESHEET)}'; "
        "img-src 'self' https: data:; connect-src 'self'; form-action 'self'; "
        "base-uri 'none'; frame-ancestors 'none'"
    )


def csrf_field(session: PanelIdentity) -> Markup:
    """The hidden CSRF input every form of the panel carries (checked by `FormDep`); in a
    template, `csrf_field(token)` of panel/macros.html."""
    return macro("panel/macros.html", "csrf_field", session.csrf_token)


def navigation(session: HasRole, section: str) -> list[tuple[Section, bool]]:
    """The sections `session`'s role may open, each with whether it is the current one."""
    return [(s, s.key == section) for s in SECTIONS if allowed(session.role, s.capability)]


def panel_page(
    title: str,
    body: Markup,
    *,
    session: PanelIdentity,
    section: str,
    store: str = "Control panel",
    done: str = "",
) -> Page:
    """A panel page: `body` inside the shell (templates/panel/layout.html). `done`: a
    confirmation shown above the content (pages pass `?done=` through after a
    Post/Redirect/Get)."""
    html = render(
        "panel/layout.html",
        title=title,
        store=store or "Control panel",
        script=SCRIPT,
        htmx_config=HTMX_CONFIG,
        email=session.email,
        role=session.role.label,
        csrf_token=session.csrf_token,
        nav=navigation(session, section),
        done=done,
        body=body,
    )
    return Page.with_policy(html, content_security_policy())


def bare_page(title: str, body: Markup) -> Page:
    """A page outside the shell (sign-in, errors before a session): same style and policy."""
    return Page.with_policy(render("panel/bare.html", title=title, body=body), content_security_policy())


def problem(title: str, message: str, *, href: str = "/", link: str = "Back to the dashboard") -> Page:
    """The panel's error page (403 for a role, 404, 409 …)."""
    content = fragment("panel/problem.html", title=title, message=message, href=href, link=link)
    return bare_page(title, content)


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


__all__ = ["SECTIONS", "Markup", "bare_page", "csrf_field", "panel_page", "problem"]
