"""The one HTML toolkit: every page of every interface renders here, from template files. HTTP-free.

`render("hosted/checkout.html", view=…)` renders a house template from `templates/` with Jinja2:
autoescape on (every value is escaped unless it is `Markup` made inside this package or by a
filter), `StrictUndefined` (a name the template uses and the caller did not pass is an error,
not an empty string), `trim_blocks`/`lstrip_blocks` (tags do not leave blank lines).

Where templates come from: a Lambda bundle carries them compiled ahead of time
(`python -m webstore.html.compile`, run by infra/aws/bundling.py) in `compiled/` next to this file,
loaded with Jinja2's `ModuleLoader` (no parsing at a cold start); without that directory (local
stack, tests) the template files themselves are loaded and compiled on first use.

Globals and filters every template has: `money` (`{{ amount|money(currency) }}`,
`webstore.money.display`), `long_date` (`1 June 2026`), `percent`, `inline("layout/player.css")`
(a stylesheet or script file of templates/, inlined and allowed by its hash, `asset_hash`).
Player-facing pages extend `layout/player.html` and get their `brand`, stylesheet and policy
from `webstore.html.player`. A panel page renders its content with
`fragment("panel/<area>/…")` (Markup: inserted as is) and `webstore.admin.layout` puts it in
the shell, `panel/layout.html`. Owner-editable templates (the shop) never come here: they run in
`webstore.html.owner`'s sandbox.
"""

from __future__ import annotations

import base64
import hashlib
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from webstore.money import display

if TYPE_CHECKING:
    from jinja2 import Environment

__all__ = [
    "COMPILED",
    "TEMPLATES",
    "Markup",
    "Page",
    "PageResult",
    "asset_hash",
    "environment",
    "fragment",
    "inline",
    "macro",
    "render",
]

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
COMPILED = HERE / "compiled"  # only in a bundle (never committed; see .gitignore)


def long_date(day: date | datetime | None) -> str:
    """`1 June 2026` in the language being rendered (`1. Juni 2026` on a German page or e-mail:
    the pattern and the month are texts of the shop's catalogs); an empty string without a date."""
    if not day:
        return ""
    from webstore.html.player import translated
    from webstore.shop.i18n import DATE_PATTERN, MONTHS

    month = translated(MONTHS[day.month - 1])
    return translated(DATE_PATTERN, day=day.day, month=month, year=day.year)


def percent(rate: Decimal) -> str:
    """`20`, `7.5`: a rate as a percentage, without trailing zeros."""
    return f"{rate.normalize():f}"


def options(**overrides: Any) -> dict[str, Any]:
    """The environment's settings, shared by the run-time environment and the compiler (so that
    a compiled module behaves exactly as its source)."""
    from jinja2 import StrictUndefined, select_autoescape

    return {
        "autoescape": select_autoescape(
            enabled_extensions=("html", "xml", "svg"), disabled_extensions=("txt", "css", "js"), default=True
        ),
        "undefined": StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "auto_reload": False,
        "keep_trailing_newline": True,
        **overrides,
    }


def configure(env: Environment) -> Environment:
    """Filters and globals every house template has."""
    env.filters["money"] = display
    env.filters["long_date"] = long_date
    env.filters["percent"] = percent
    env.globals["inline"] = inline
    from jinja2 import pass_context

    from webstore.html.player import translated

    # Marked as reading the context so that Jinja never folds `"Pay"|trans` into the compiled
    # template: the text depends on the page's language, known only when it renders.
    env.filters["trans"] = pass_context(lambda _context, text, **params: translated(text, **params))
    return env


@cache
def environment() -> Environment:
    """The house environment: compiled modules when the bundle carries them, else the files.
    Jinja2 is imported here, on the first page rendered, not by every module that names a
    `PageResult` (JSON handlers do not pay for it at a cold start)."""
    return make_environment(COMPILED if COMPILED.is_dir() else None)


def make_environment(compiled: Path | None) -> Environment:
    """An environment on the compiled modules in `compiled`, or (None) on the template files."""
    from jinja2 import Environment, FileSystemLoader, ModuleLoader

    if compiled is not None:
        return configure(Environment(loader=ModuleLoader(str(compiled)), **options()))
    return configure(Environment(loader=FileSystemLoader(str(TEMPLATES)), **options(auto_reload=True)))


def reset() -> None:
    """Forget the environment and what it rendered (tests that switch between loaders)."""
    for cached in (environment, inline, asset_hash):
        cached.cache_clear()


@cache
def inline(asset: str) -> Markup:
    """A stylesheet or script of templates/ (e.g. "layout/player.css") as a page inlines it
    (`<style>{{ inline("layout/player.css") }}</style>`): always the same text, so a policy
    allows it by its hash (`asset_hash`)."""
    return Markup(environment().get_template(asset).render())


@cache
def asset_hash(asset: str) -> str:
    """What a policy's `style-src`/`script-src` names to allow the inlined `asset`."""
    return base64.b64encode(hashlib.sha256(inline(asset).encode()).digest()).decode()


def render(template: str, /, **context: Any) -> str:
    """The house template `template` (a path under templates/, e.g. "hosted/checkout.html")
    rendered with `context`."""
    return environment().get_template(template).render(context)


def fragment(template: str, /, **context: Any) -> Markup:
    """A piece of a page rendered from the house template `template` (a panel page's content,
    which the shell then inserts as is)."""
    return Markup(render(template, **context))


def macro(template: str, name: str, /, *args: Any, **kwargs: Any) -> Markup:
    """The macro `name` of the house template `template` called with these arguments (a widget
    a page's code hands to its template, e.g. the panel's CSRF field)."""
    return Markup(getattr(environment().get_template(template).module, name)(*args, **kwargs))


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
    a `Page` with a theme). functions/pages.py turns it into a response."""

    status: int = 200
    html: str = ""
    redirect: str | None = None
    csp: str | None = None

    def __post_init__(self) -> None:
        if self.csp is None and isinstance(self.html, Page) and self.html.policy:
            object.__setattr__(self, "csp", self.html.policy)
