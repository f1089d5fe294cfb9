"""Owner-editable templates: the shop's theme (docs/shop.md, "Templates").

A store owner may replace any file of the shop's default theme (Tebex's template contract:
`layout.html`, `index.html`, `category.html`, `package.html`, `options.html`, `username.html`,
`checkout.html`, `cms/page.html`, `module.<type>.html`). Their files run in Jinja2's
`ImmutableSandboxedEnvironment`:

- no attribute or item whose name starts with `_` (`__class__`, `__globals__`, …), no
  `str.format` on attributes (format-string tricks), no mutation of what the page hands in
  (`list.append`, `dict.update`);
- the context is plain data (dicts, lists, strings, numbers, already-sanitised `Markup`), built
  by `webstore.shop.context`: never a house object, a service, a setting or a secret;
- the globals are only `range` (bounded by the sandbox), `dict` and `namespace`: Jinja's
  `cycler`, `joiner` and `lipsum` are removed;
- autoescape is on: whatever a player typed (a name, a variable) is escaped. `raw` (Twig's way
  of printing HTML) sanitises with nh3 before it marks the text safe, so even a `|raw` on a
  player's name cannot inject script;
- an unknown variable is an error (`StrictUndefined`), found when the template is checked;
- a render has a budget (`RenderBudget`: time, output size, loop steps, the size of a string or
  list a `*` makes, the size of a `**`): a template that passes it fails like any other, so the
  shop serves the file's last good version and the panel lists the error.

Twig features Tebex templates use that Jinja lacks are added as filters and tests (`raw`,
`e`, `empty`, `url_encode`, `nl2br`, `date`, `number_format`, `money`, `trans`, `keys`,
`merge`, `slice`); docs/shop.md lists what still differs.

A Lambda bundle carries the default theme compiled ahead of time by this environment itself
(`compile_theme`, into `COMPILED_THEME`: the sandbox's checks and the loop budget are in the
compiled code); the theme's files an owner did not replace load from those modules. An
owner's files compile on first use (once per instance for a given set of files).
"""

from __future__ import annotations

import html as html_lib
import math
import shutil
import time
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal, InvalidOperation
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, NamedTuple
from urllib.parse import quote

import nh3
from jinja2 import (
    BaseLoader,
    ChoiceLoader,
    DictLoader,
    FileSystemLoader,
    ModuleLoader,
    StrictUndefined,
    Template,
    TemplateError,
    TemplateSyntaxError,
    nodes,
    pass_context,
    select_autoescape,
)
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment, SecurityError
from markupsafe import Markup, escape

from webstore.html import COMPILED
from webstore.money import display

__all__ = [
    "COMPILED_THEME",
    "THEME",
    "OwnerTemplateError",
    "RenderBudget",
    "RenderBudgetExceeded",
    "SecurityError",
    "check_template",
    "environment",
    "render_owner",
    "render_owner_fragment",
    "sanitize",
]

THEME = Path(__file__).resolve().parent / "templates" / "shop"
# The default theme compiled ahead of time by `OwnerEnvironment` itself (webstore.html.compile,
# run by the Lambda bundle): only in a bundle, never committed.
COMPILED_THEME = COMPILED / "shop"

# What owner HTML (a text module, a custom page, a description) may keep: nh3's defaults (no
# script, no event handlers, no style attributes, no javascript: URLs), links opening safely.
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}


class OwnerTemplateError(Exception):
    """A template that cannot be used: its name, line and what is wrong (the editor shows it)."""

    def __init__(self, name: str, line: int | None, message: str) -> None:
        self.name, self.line, self.message = name, line, message
        where = f"{name}, line {line}" if line else name
        super().__init__(f"{where}: {message}")


def sanitize(value: object) -> Markup:
    """Owner-written HTML, cleaned by nh3 (Ammonia): markup kept, script and handlers gone."""
    if value is None:
        return Markup("")
    if isinstance(value, Markup):
        value = str(value)
    return Markup(nh3.clean(str(value), url_schemes=ALLOWED_URL_SCHEMES, link_rel="noopener noreferrer"))


# --- Twig compatibility: filters and tests ---------------------------------------------------


def _raw(value: object) -> Markup:
    """Twig's `raw`: print HTML. Sanitised here, so it never lets script through."""
    return sanitize(value)


def _empty(value: object) -> bool:
    """Twig's `empty`: None, "", an empty sequence or mapping, False; 0 is not empty in Twig 3."""
    if value is None or value is False or value == "":
        return True
    if isinstance(value, Mapping | list | tuple | set | str):
        return len(value) == 0
    return False


def _url_encode(value: object) -> str:
    return quote(str(value), safe="")


def _nl2br(value: object) -> Markup:
    return Markup("<br>\n").join(escape(str(value)).split("\n"))


_TWIG_DATE = {
    "Y": "%Y",
    "m": "%m",
    "d": "%d",
    "H": "%H",
    "i": "%M",
    "s": "%S",
    "j": "%-d",
    "n": "%-m",
    "M": "%b",
    "F": "%B",
    "D": "%a",
    "l": "%A",
    "y": "%y",
    "G": "%-H",
}


def _date(value: object, format: str = "F j, Y") -> str:
    """Twig's `date` with PHP's common letters (Y m d H i s j n M F D l y G)."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return str(value)
    if not isinstance(value, date):
        return str(value)
    pattern = "".join(_TWIG_DATE.get(c, c.replace("%", "%%")) for c in format)
    return value.strftime(pattern)


def _decimal(value: object) -> Decimal:
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return Decimal(0)


def _number_format(value: object, decimals: int = 0, point: str = ".", thousands: str = ",") -> str:
    amount = _decimal(value).quantize(Decimal(1).scaleb(-max(0, min(int(decimals), 8))))
    whole, _, fraction = f"{abs(amount):f}".partition(".")
    grouped = f"{int(whole):,}".replace(",", thousands)
    sign = "-" if amount < 0 else ""
    return f"{sign}{grouped}{point}{fraction}" if fraction else f"{sign}{grouped}"


def _money(value: object, currency: Mapping[str, Any] | str | None = None) -> str:
    """An amount with its currency, as every page shows prices (`$4.99 USD`: webstore.money)."""
    code = str(currency.get("iso_4217", "")) if isinstance(currency, Mapping) else str(currency or "")
    return display(_decimal(value), code) if code else _number_format(value, 2)


def translate(translations: Mapping[str, str], text: str, params: Mapping[str, object]) -> str:
    """`text` in the page's language, its `%(name)s` placeholders filled; a translation whose
    placeholders do not fit falls back to the text itself."""
    found = translations.get(text, text)
    if not params:
        return found
    values = {k: str(v) for k, v in params.items()}
    for candidate in (found, text):
        try:
            return candidate % values
        except (KeyError, ValueError, TypeError):
            continue
    return text


@pass_context
def _trans(context: Context, value: object, **params: object) -> str:
    """Twig's `trans`: the text in the page's language (its `translations`, a plain mapping),
    `%(name)s` placeholders filled from `params` (escaped on output like any text)."""
    translations = context.get("translations")
    return translate(translations if isinstance(translations, Mapping) else {}, str(value), params)


def _keys(value: Mapping[str, Any]) -> list[str]:
    return list(value.keys())


def _merge(value: Any, other: Any) -> Any:
    """Twig's `merge`: a new list or mapping (the sandbox's data stays unchanged)."""
    if isinstance(value, Mapping) and isinstance(other, Mapping):
        return {**value, **other}
    return [*value, *other]


def _slice(value: Any, start: int, length: int | None = None) -> Any:
    """Twig's `slice(start, length)` (Jinja's own `slice` splits into columns)."""
    end = None if length is None else start + length
    return value[start:end]


FILTERS: dict[str, Callable[..., Any]] = {
    "raw": _raw,
    "url_encode": _url_encode,
    "nl2br": _nl2br,
    "date": _date,
    "number_format": _number_format,
    "money": _money,
    "trans": _trans,
    "keys": _keys,
    "merge": _merge,
    "slice": _slice,
    "sanitize": sanitize,
}
TESTS: dict[str, Callable[..., bool]] = {"empty": _empty}
GLOBALS_REMOVED = ("cycler", "joiner", "lipsum")
FORMAT_METHODS = frozenset({"format", "format_map"})
# The only methods a template may call on the data: reading a mapping, simple string changes.
# Everything else callable (`format`, `format_map`, `append`, `update`, …) is refused.
SAFE_METHODS = frozenset(
    {"items", "keys", "values", "get", "lower", "upper", "strip", "title", "capitalize",
     "startswith", "endswith", "split", "replace"}
)  # fmt: skip


class OwnerEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with the Twig compatibility layer and the render budget's hooks."""

    intercepted_binops = frozenset({"*", "**"})

    def __init__(self, loader: Any) -> None:
        super().__init__(
            loader=loader,
            autoescape=select_autoescape(default=True, default_for_string=True),
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            auto_reload=False,
        )
        self.filters.update(FILTERS)
        self.filters[LOOP_BUDGET_FILTER] = _loop_budget
        self.tests.update(TESTS)
        for name in GLOBALS_REMOVED:
            self.globals.pop(name, None)

    def _parse(self, source: str, name: str | None, filename: str | None) -> nodes.Template:
        """Every `for` loop iterates through the budget's counter (`_loop_budget`)."""
        tree = super()._parse(source, name, filename)
        for loop in tree.find_all(nodes.For):
            wrapped = nodes.Filter(loop.iter, LOOP_BUDGET_FILTER, [], [], None, None, lineno=loop.lineno)
            loop.iter = wrapped.set_environment(self)
        return tree

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        """`*` and `**` within the budget: no string or list of millions of items from one
        expression, no number of millions of digits."""
        limit = (_SPENDING.get() or _Spending(DEFAULT_BUDGET, 0.0)).budget.product_items
        if operator == "*":
            for seq, times in ((left, right), (right, left)):
                if (
                    isinstance(seq, str | list | tuple)
                    and isinstance(times, int)
                    and len(seq) * times > limit
                ):
                    raise RenderBudgetExceeded(f"a `*` would make more than {limit:,} items")
        big = isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1
        if operator == "**" and big and right * abs(left).bit_length() > limit:
            raise RenderBudgetExceeded(f"a `**` would make a number of more than {limit:,} bits")
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj: Any, attribute: str) -> Any:
        """No string formatting at all: Jinja would hand back a sandboxed `format`; refused."""
        if attribute in FORMAT_METHODS:
            return self.unsafe_undefined(obj, attribute)
        return super().getattr(obj, attribute)

    def getitem(self, obj: Any, argument: Any) -> Any:
        if isinstance(argument, str) and argument in FORMAT_METHODS:
            return self.unsafe_undefined(obj, argument)
        return super().getitem(obj, argument)

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        """The sandbox's refusals, and no method but the few in SAFE_METHODS."""
        if not super().is_safe_attribute(obj, attr, value):
            return False
        return not callable(value) or attr in SAFE_METHODS


class RenderBudget(NamedTuple):
    """What one render of a page may take. A page of the default theme renders in a few
    milliseconds, outputs tens of KB (at most 60 KB: docs/shop.md) and loops a few thousand
    times with 1,000 packages: the limits are far above that and far below harm."""

    # Wall clock, checked at every output and every 64 loop steps. It includes compiling the
    # files a page loads on first use (~1 s for the whole theme in a cold, loaded process), so
    # it is generous, and the house's own theme (no owner file) is not timed at all.
    seconds: float = 3.0
    output_chars: int = 1_000_000
    loop_steps: int = 200_000  # every `for` of the render together
    product_items: int = 100_000  # a `*` making a string or list, the digits of a `**`


DEFAULT_BUDGET = RenderBudget()


class RenderBudgetExceeded(TemplateError):
    """A template took more than its render's budget: the template's error, as any other."""


@dataclass
class _Spending:
    budget: RenderBudget
    deadline: float
    steps: int = 0

    def check_time(self) -> None:
        if time.monotonic() > self.deadline:
            raise RenderBudgetExceeded(f"the page took longer than {self.budget.seconds:g} s to render")


_SPENDING: ContextVar[_Spending | None] = ContextVar("owner_render_spending", default=None)


def _loop_budget(iterable: Any) -> Iterable[Any]:
    """Every `for` of a template iterates through this (added by `OwnerEnvironment._parse`)."""
    spending = _SPENDING.get()
    if spending is None:
        yield from iterable
        return
    for item in iterable:
        spending.steps += 1
        if spending.steps > spending.budget.loop_steps:
            raise RenderBudgetExceeded(f"the page's loops ran more than {spending.budget.loop_steps:,} times")
        if spending.steps % 64 == 0:
            spending.check_time()
        yield item


def _spend(generated: Iterable[str], budget: RenderBudget) -> str:
    """Join a render's output under `budget` (its time and size)."""
    spending = _Spending(budget, time.monotonic() + budget.seconds)
    token = _SPENDING.set(spending)
    try:
        out: list[str] = []
        size = 0
        for piece in generated:
            size += len(piece)
            if size > budget.output_chars:
                raise RenderBudgetExceeded(f"the page is longer than {budget.output_chars:,} characters")
            out.append(piece)
            spending.check_time()
        return "".join(out)
    finally:
        _SPENDING.reset(token)


LOOP_BUDGET_FILTER = "loop_budget"


class _CompiledTheme(ModuleLoader):
    """The default theme's modules compiled ahead of time. Each template keeps its file's path as
    its filename (the module's would be `tmpl_<hash>.py`), so that an error's traceback names the
    theme file and line as when the file itself is loaded (`_where`)."""

    def __init__(self, compiled: Path, theme: Path) -> None:
        super().__init__(str(compiled))
        self.theme = theme

    def load(self, environment: Any, name: str, globals: Any = None) -> Template:
        template = super().load(environment, name, globals)
        template.filename = str(self.theme / name)
        return template


def _theme_loader() -> BaseLoader:
    """The default theme: its modules compiled ahead of time where a bundle carries them (one
    loader per environment: Jinja binds a loaded module to the environment that loaded it),
    else its files, compiled on first use."""
    if COMPILED_THEME.is_dir():
        return _CompiledTheme(COMPILED_THEME, THEME)
    return FileSystemLoader(str(THEME))


class _OwnerLoader(DictLoader):
    """The owner's files, compiled under their own names: an error's traceback names the file
    that failed (`OwnerTemplateError.name`), not only the page asked for."""

    def get_source(self, environment: Any, template: str) -> tuple[str, str | None, Callable[[], bool]]:  # type: ignore[override]
        source, _, uptodate = super().get_source(environment, template)
        return source, template, uptodate


@cache
def _default_environment() -> OwnerEnvironment:
    return OwnerEnvironment(_theme_loader())


@lru_cache(maxsize=16)
def _owner_environment(overrides: tuple[tuple[str, str], ...]) -> OwnerEnvironment:
    return OwnerEnvironment(ChoiceLoader([_OwnerLoader(dict(overrides)), _theme_loader()]))


def environment(overrides: Mapping[str, str] | None = None) -> OwnerEnvironment:
    """The default theme's environment (shared, its templates loaded once per process), or one
    where the owner's files (`overrides`: file name → source) replace the theme's (kept for the
    next request with the same files: a store's live theme compiles once per instance). The
    theme's files come compiled ahead of time in a bundle (`_theme_loader`); an owner's file is
    compiled on first use, as it changes while the function runs."""
    if not overrides:
        return _default_environment()
    return _owner_environment(tuple(sorted(overrides.items())))


def reset() -> None:
    """Forget the environments and what they loaded (tests that switch between loaders)."""
    _default_environment.cache_clear()
    _owner_environment.cache_clear()


def compile_theme(target: Path, source: Path = THEME) -> list[str]:
    """Compile the theme's files under `source` into modules in `target` (emptied first) with
    the owner environment itself, so that the compiled code is the sandbox's: every attribute,
    item, call and `*`/`**` goes through its checks, every `for` through the loop budget
    (`OwnerEnvironment._parse`). Returns the names compiled (webstore.html.compile)."""
    if target.exists():
        shutil.rmtree(target)
    target.mkdir(parents=True)
    env = OwnerEnvironment(FileSystemLoader(str(source)))
    names = env.list_templates(extensions=("html",))
    env.compile_templates(str(target), extensions=("html",), zip=None, ignore_errors=False)
    return names


# What an owner's template may raise besides Jinja's own errors (a filter given a wrong type, a
# division by zero, an index out of range, a recursion): each is the template's error.
OWNER_FAULTS = (TemplateError, SecurityError, TypeError, ValueError, ArithmeticError, LookupError,
                AttributeError, RecursionError)  # fmt: skip


def render_owner(
    template: str,
    /,
    overrides: Mapping[str, str] | None = None,
    budget: RenderBudget = DEFAULT_BUDGET,
    **context: Any,
) -> str:
    """Render a theme file (a Tebex file name, e.g. `index.html`) with `context` within `budget`;
    any failure of a template (its budget passed too) is an OwnerTemplateError naming the file
    and line that failed."""
    if not overrides:  # the house's files: ours, not timed (a loaded machine must not fail them)
        budget = budget._replace(seconds=math.inf)
    try:
        return _spend(environment(overrides).get_template(template).generate(**context), budget)
    except TemplateSyntaxError as error:
        raise OwnerTemplateError(
            error.name or template, error.lineno, error.message or "syntax error"
        ) from error
    except OWNER_FAULTS as error:
        name, line = _where(error)
        raise OwnerTemplateError(name or template, line, _message(error)) from error


def render_owner_fragment(
    template: str, /, overrides: Mapping[str, str], budget: RenderBudget = DEFAULT_BUDGET, **context: Any
) -> Markup:
    """`render_owner` of an owner's HTML fragment, as Markup to embed in a house template (an
    e-mail body inside the mail layout): the sandbox escaped every value the context holds."""
    return Markup(render_owner(template, overrides, budget, **context))


def _message(error: BaseException) -> str:
    if isinstance(error, TemplateError | SecurityError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _where(error: BaseException) -> tuple[str | None, int | None]:
    """The template file and line a render error was raised in (the deepest template frame of
    the traceback Jinja rewrites): a theme file by its name under the theme, an owner's by its."""
    trace = error.__traceback__
    name: str | None = None
    line = None
    while trace is not None:
        filename = trace.tb_frame.f_code.co_filename
        if filename.endswith(".html") or filename == "<template>":
            path = Path(filename)
            name = path.relative_to(THEME).as_posix() if path.is_relative_to(THEME) else filename
            line = trace.tb_lineno
        trace = trace.tb_next
    return (None if name == "<template>" else name), line


def _line_of(error: BaseException) -> int | None:
    return _where(error)[1]


def check_template(name: str, source: str, samples: Iterable[Mapping[str, Any]] = ()) -> None:
    """Refuse a template that does not parse, or that fails on sample contexts (an unknown
    variable, a sandbox violation): OwnerTemplateError naming the line."""
    env = environment({name: source})
    try:
        env.parse(source, name=name)
    except TemplateSyntaxError as error:
        raise OwnerTemplateError(name, error.lineno, error.message or "syntax error") from error
    for context in samples:
        try:
            _spend(env.get_template(name).generate(**context), DEFAULT_BUDGET)
        except OWNER_FAULTS as error:
            raise OwnerTemplateError(name, _line_of(error), _message(error)) from error


def text(value: object) -> str:
    """Plain text of owner HTML (meta descriptions)."""
    return html_lib.unescape(nh3.clean(str(value), tags=set()))
