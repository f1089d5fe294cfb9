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
`webstore.money.display`), `long_date` (`1 June 2026`), `player_style` (the player pages'
stylesheet, templates/layout/player.css). Player-facing pages extend
`layout/player.html` and get their `brand`, stylesheet and policy from `webstore.html.player`;
the panel's pages extend `panel/layout.html`. Owner-editable templates (the shop) never come
here: they run in `webstore.html.owner`'s sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, ModuleLoader, StrictUndefined, select_autoescape
from markupsafe import Markup

from webstore.money import display

__all__ = ["COMPILED", "TEMPLATES", "Markup", "Page", "PageResult", "environment", "render"]

HERE = Path(__file__).parent
TEMPLATES = HERE / "templates"
COMPILED = HERE / "compiled"  # only in a bundle (never committed; see .gitignore)


def long_date(day: date | datetime | None) -> str:
    """`1 June 2026` (an empty string without a date)."""
    return f"{day.day} {day:%B %Y}" if day else ""


def options(**overrides: Any) -> dict[str, Any]:
    """The environment's settings, shared by the run-time environment and the compiler (so that
    a compiled module behaves exactly as its source)."""
    return {
        "autoescape": select_autoescape(
            enabled_extensions=("html", "xml", "svg"), disabled_extensions=("txt", "css"), default=True
        ),
        "undefined": StrictUndefined,
        "trim_blocks": True,
        "lstrip_blocks": True,
        "auto_reload": False,
        **overrides,
    }


def configure(env: Environment) -> Environment:
    """Filters and globals every house template has."""
    env.filters["money"] = display
    env.filters["long_date"] = long_date
    # The player pages' one stylesheet, inlined by layout/player.html and allowed by its hash.
    env.globals["player_style"] = Markup(env.get_template("layout/player.css").render())
    return env


@cache
def environment() -> Environment:
    """The house environment: compiled modules when the bundle carries them, else the files."""
    if COMPILED.is_dir():
        return configure(Environment(loader=ModuleLoader(str(COMPILED)), **options()))
    return configure(Environment(loader=FileSystemLoader(str(TEMPLATES)), **options(auto_reload=True)))


def render(template: str, /, **context: Any) -> str:
    """The house template `template` (a path under templates/, e.g. "hosted/checkout.html")
    rendered with `context`."""
    return environment().get_template(template).render(context)


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
