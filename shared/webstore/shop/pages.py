"""The shop's pages: each one read (`reads.read_shop`), its variables (`context.Builder`), one
theme file rendered in the sandbox. Every page answers a `ShopResult`; a missing category,
package or page is the theme's branded 404 with a way back."""

from __future__ import annotations

import base64
import hashlib
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode, urlsplit

from webstore.errors import DomainError, NotFound
from webstore.html.owner import OwnerTemplateError, render_owner, sanitize, translate
from webstore.repo.shop_theme import ShopTheme
from webstore.services import Services
from webstore.shop import assets, maintenance
from webstore.shop.context import Builder
from webstore.shop.i18n import LANGUAGE_NAMES, html_lang
from webstore.shop.reads import ShopData, Visitor, read_shop
from webstore.shop.translations import page_texts
from webstore.storefront.shown import visible_packages

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ShopResult:
    """A page (status, html, its policy) or a redirect (Post/Redirect/Get), and what the
    visitor's cookies should now hold: `basket` an ident to remember ("" forgets it),
    `player` the basket's player id (0 forgets it)."""

    status: int = 200
    html: str = ""
    redirect: str | None = None
    csp: str = ""
    basket: str | None = None
    player: int | None = None
    language: str | None = None  # the switcher's pick to remember (`shop_lang`)
    headers: dict[str, str] = field(default_factory=dict)


def style_hash(style: str) -> str:
    return base64.b64encode(hashlib.sha256(style.encode()).digest()).decode()


def content_security_policy(
    theme_style: str = "", *, checkout_origin: str = "", asset_origin: str = "", preview: bool = False
) -> str:
    """Strict: scripts and styles from the shop's own files (no inline script at all), the
    store's colours as one inline stylesheet allowed by its hash, images from http(s), forms
    to the shop (and, after the checkout form's redirect, the hosted checkout's origin). A
    panel preview (`preview`) takes the stylesheet from the shop's origin and runs no script
    and no form."""
    own = f"'self' {asset_origin}" if asset_origin else "'self'"
    styles = own + (f" 'sha256-{style_hash(theme_style)}'" if theme_style else "")
    forms = "'none'" if preview else "'self'" + (f" {checkout_origin}" if checkout_origin else "")
    scripts = "'none'" if preview else own
    return (
        f"default-src 'none'; script-src {scripts}; style-src {styles}; img-src 'self' https: http:; "
        f"connect-src 'self'; form-action {forms}; base-uri 'none'; frame-ancestors 'none'"
    )


def origin(url: str) -> str:
    parts = urlsplit(url)
    port = f":{parts.port}" if parts.port else ""
    return f"{parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}" if parts.hostname else ""


def render_themed(template: str, theme: ShopTheme, context: dict[str, Any]) -> str:
    """The page in the store's live theme. A file of the owner's that fails (a variable the
    data lacks today, a filter given the wrong type) is replaced by its last good version, else
    by the house's file, and the page is rendered again: a template error never takes the shop
    down (the panel's Shop page shows the error). Each file is replaced at most once."""
    overrides = dict(theme.sources)
    replaced: set[str] = set()
    while True:
        try:
            return render_owner(template, overrides=overrides, **context)
        except OwnerTemplateError as error:
            if not overrides:
                raise  # the house's own files: a bug of ours, not the owner's
            log.warning("owner template failed, falling back: %s", error)
            name = error.name
            if name not in overrides or name in replaced:
                overrides = {}  # the culprit is unclear: the house's theme
                continue
            replaced.add(name)
            good = theme.last_good.get(name)
            if good is not None and good != overrides[name]:
                overrides[name] = good
            else:
                del overrides[name]


def page_context(
    data: ShopData,
    visitor: Visitor,
    title: str,
    extra: dict[str, Any],
    *,
    asset_urls: dict[str, str] | None = None,
) -> dict[str, Any]:
    builder = Builder(data, csrf=visitor.csrf, assets=asset_urls or assets.urls())
    here = visitor.path or form_page(extra)
    context = builder.common(title) | {"languages": switcher(data.language, here)} | extra
    return localized(context, page_texts(data.theme, data.language))


SWITCH_PATH = "/language"


def form_page(extra: dict[str, Any]) -> str:
    """Where the switcher returns to from a page a form answered (a refusal): the page the form
    is on, not the form's address."""
    package = extra.get("package")
    if isinstance(package, dict) and package.get("url"):
        return str(package["url"])
    if "username" in extra:
        return "/login"
    if "problem" in extra:
        return "/"
    return "/basket"


def switcher(current: str, here: str) -> list[dict[str, Any]]:
    """The language switcher: each language's link (`GET /language?lang=de&next=<this page>`),
    the page's own marked `current`."""
    return [
        {
            "code": html_lang(code),
            "name": name,
            "current": code == current,
            "url": f"{SWITCH_PATH}?{urlencode({'lang': html_lang(code), 'next': here or '/'})}",
        }
        for code, name in LANGUAGE_NAMES.items()
    ]


def localized(context: dict[str, Any], translations: Mapping[str, str]) -> dict[str, Any]:
    """The texts the shop's Python passes (the title, a refusal, the error page's) in the
    page's language, where the catalogs have them (`i18n.PYTHON_TEXTS`); others as they are."""
    if not translations:
        return context
    context["title"] = translate(translations, str(context["title"]), {})
    if context.get("error"):
        context["error"] = translate(translations, str(context["error"]), {})
    problem = context.get("problem")
    if isinstance(problem, dict):
        context["problem"] = problem | {
            "title": translate(translations, str(problem["title"]), {}),
            "message": translate(translations, str(problem["message"]), {}),
        }
    return context


def render_page(
    services: Services,
    data: ShopData,
    visitor: Visitor,
    template: str,
    title: str,
    *,
    status: int = 200,
    **extra: Any,
) -> ShopResult:
    """The page, or the maintenance page when the shop is closed to this visitor."""
    if template not in maintenance.OPEN_TEMPLATES and closed_to(data, visitor):
        return maintenance_page(services, data, visitor)
    return _rendered(services, data, visitor, template, title, status, extra)


def _rendered(
    services: Services,
    data: ShopData,
    visitor: Visitor,
    template: str,
    title: str,
    status: int,
    extra: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> ShopResult:
    context = page_context(data, visitor, title, extra)
    html = render_themed(template, data.theme, context)
    checkout = origin(services.settings.storefront_url)
    policy = content_security_policy(context["store"]["theme_style"], checkout_origin=checkout)
    return ShopResult(status, html, csp=policy, headers=headers or {})


def closed_to(data: ShopData, visitor: Visitor) -> bool:
    """Maintenance mode is on and its allow-list names neither the visitor's address nor the
    player their basket is logged in as."""
    look = data.theme.look
    username = data.basket.username if data.basket is not None else None
    return maintenance.closed(look.maintenance, look.maintenance_allow, visitor.ip, username)


def maintenance_vars(data: ShopData) -> dict[str, Any]:
    """`maintenance`: `message` (the owner's, else the house's in the page's language) and
    `login` (the allow-list names players: the page links the log-in page)."""
    look = data.theme.look
    try:
        allowed, _ = maintenance.parse_allow_list(look.maintenance_allow)
    except DomainError:
        allowed = maintenance.AllowList()
    texts = page_texts(data.theme, data.language)
    message = look.maintenance_message or translate(texts, maintenance.DEFAULT_MESSAGE, {})
    return {"maintenance": {"message": message, "login": bool(allowed.names)}}


def maintenance_page(services: Services, data: ShopData, visitor: Visitor) -> ShopResult:
    """The theme's `maintenance.html`: 503, come back later (`Retry-After`)."""
    return _rendered(
        services,
        data,
        visitor,
        "maintenance.html",
        maintenance.TITLE,
        503,
        maintenance_vars(data),
        maintenance.retry_after(),
    )


Build = Callable[[ShopData, Builder], tuple[str, str, dict[str, Any]]]


def page(services: Services, visitor: Visitor, build: Build, data: ShopData | None = None) -> ShopResult:
    """Read (unless the caller has read: `data`), build the page's own variables (`build` →
    template, title, variables), render; a domain error met while building is the branded
    error page of the same read."""
    data = data or read_shop(services, visitor)
    builder = Builder(data, csrf=visitor.csrf, assets=assets.urls())
    try:
        template, title, extra = build(data, builder)
    except DomainError as error:
        return error_page(services, data, visitor, error)
    return render_page(services, data, visitor, template, title, **extra)


def error_page(
    services: Services, data: ShopData, visitor: Visitor, error: DomainError, **extra: Any
) -> ShopResult:
    """The theme's error page (`error.html`): the store's frame, the message, a way back."""
    return render_page(
        services,
        data,
        visitor,
        "error.html",
        error.title,
        status=error.status,
        **problem_vars(error),
        **extra,
    )


def problem_vars(error: DomainError) -> dict[str, Any]:
    return {"problem": {"status": error.status, "title": error.title, "message": error.detail}}


# --- the pages: each one's variables (`Build`), then the page --------------------------------


def build_home(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
    ordered = sorted(data.view.categories, key=lambda c: (c.order, c.id))
    top = [b.category_vars(c) for c in ordered if not c.parent_id and not c.dynamic]
    return "index.html", data.store.name, {"featured": b.featured(), "category_list": top}


def build_category(id_or_slug: str) -> Build:
    def build(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        found = next((c for c in data.view.categories if id_or_slug in (str(c.id), c.slug)), None)
        if found is None:
            raise NotFound("There is no such category in this store")
        shown = b.category_vars(found)
        return "category.html", found.name, {"category": shown, "packages": shown["packages"]}

    return build


def build_package(package_id: str, error: str = "") -> Build:
    def build(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        found = next((p for p in visible_packages(data.view) if str(p.id) == package_id), None)
        if found is None:
            raise NotFound("There is no such package in this store")
        category = data.view.category(found.category_id)
        shown = b.package_vars(found)
        if category is not None and category.tiered:  # the upgrade price for a tier holder
            priced, _ = b.packages_of(category)
            shown = next((p for p in priced if p["id"] == found.id), shown)
        return (
            "package.html",
            found.name,
            {
                "package": shown,
                "category": {"name": category.name, "url": b.category_vars(category)["url"]}
                if category
                else None,
                "error": error,
            },
        )

    return build


def build_custom_page(slug: str) -> Build:
    def build(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        del b
        found = next((p for p in data.view.pages if p.slug == slug and not (p.disabled or p.private)), None)
        if found is None:
            raise NotFound("There is no such page in this store")
        content = {
            "id": found.id,
            "title": found.title,
            "slug": found.slug,
            "content": sanitize(found.content),
        }
        return "cms/page.html", found.title, {"page": content}

    return build


def build_basket(error: str = "") -> Build:
    """Tebex's `checkout.html`: the basket, its codes and totals (the checkout's own figures)."""

    def build(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        del data, b
        return "checkout.html", "Basket", {"error": error}

    return build


def build_login(error: str = "", username: str = "", next_path: str = "/") -> Build:
    def build(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        del b
        from webstore.identity.steam import is_steam_store  # the log-in page's only (not every page's)

        # A Steam store's players sign in through Steam (a form to POST /login/steam), not by name.
        steam = "/login/steam" if is_steam_store(data.store) else ""
        return (
            "username.html",
            "Log in",
            {
                "error": error,
                "username": username,
                "next": next_path,
                "steam": steam,
                # How a Bedrock player types their name (docs/shop.md, "Bedrock players").
                "bedrock_prefix": "" if steam else data.store.bedrock_prefix,
                "bedrock_unprefixed": not steam and data.store.bedrock_unprefixed,
            },
        )

    return build


def home(services: Services, visitor: Visitor) -> ShopResult:
    return page(services, visitor, build_home)


def category(services: Services, visitor: Visitor, id_or_slug: str) -> ShopResult:
    return page(services, visitor, build_category(id_or_slug))


def package(
    services: Services, visitor: Visitor, package_id: str, *, error: str = "", status: int = 200
) -> ShopResult:
    result = page(services, visitor, build_package(package_id, error))
    if status != 200 and result.status == 200:
        return ShopResult(status, result.html, csp=result.csp)
    return result


def custom_page(services: Services, visitor: Visitor, slug: str) -> ShopResult:
    return page(services, visitor, build_custom_page(slug))


def basket(services: Services, visitor: Visitor, *, error: str = "", status: int = 200) -> ShopResult:
    result = page(services, visitor, build_basket(error))
    return ShopResult(status, result.html, csp=result.csp) if status != 200 else result


def login(
    services: Services,
    visitor: Visitor,
    *,
    error: str = "",
    username: str = "",
    status: int = 200,
    next_path: str = "/",
    data: ShopData | None = None,
) -> ShopResult:
    result = page(services, visitor, build_login(error, username, next_path), data)
    return ShopResult(status, result.html, csp=result.csp) if status != 200 else result


def bare_error(error: DomainError) -> str:
    """The error page when there is no store to brand it with (the default theme's own file)."""
    return render_owner(
        "bare.html", problem={"status": error.status, "title": error.title, "message": error.detail}
    )


def not_found(services: Services, visitor: Visitor, error: DomainError | None = None) -> ShopResult:
    """Any address the shop does not have (the interface's 404, a refused form): branded."""
    data = read_shop(services, visitor)
    return error_page(services, data, visitor, error or NotFound("There is nothing at this address"))


__all__ = [
    "OwnerTemplateError",
    "ShopResult",
    "Visitor",
    "basket",
    "category",
    "content_security_policy",
    "custom_page",
    "home",
    "login",
    "not_found",
    "package",
]
