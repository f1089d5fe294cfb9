"""The shop's HTTP side (docs/shop.md, "Security"): the visitor's cookies, the CSRF check of
every form, and the one way a shop use case's result becomes a response.

- `shop_basket` (the basket ident) and `shop_player` (its player's id, for the one-round-trip
  read of their tiers): HttpOnly, SameSite=Lax, Secure when the shop is served over https.
- `shop_csrf`: a random token set by the first page with a form (HttpOnly too: the forms carry
  it in a hidden field); every form must send the same value, compared in constant time
  (double submit). A form without it, or with another, is refused (403) and changes nothing.

Pages that do not depend on the player (home, category, custom pages: `shared_page`) are
cacheable at the edge for a short time when the visitor has none of the shop's cookies: such a
page is the same for every cookie-less visitor of a language, carries no token and sets no
cookie (docs/shop.md, "Caching at the edge"). Every other response is `no-store`.
"""

from __future__ import annotations

import hmac
import ipaddress
import re
import secrets
from collections.abc import Callable
from dataclasses import replace
from typing import Annotated

from fastapi import Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from functions.deps import ServicesDep
from functions.deps import client_ip as connection_ip
from functions.forms import form_fields
from functions.observability import logger
from webstore.errors import DomainError, Forbidden, Throttled
from webstore.services import Services
from webstore.shop import pages
from webstore.shop.pages import ShopResult
from webstore.shop.reads import Visitor

BASKET_COOKIE = "shop_basket"
PLAYER_COOKIE = "shop_player"
CSRF_COOKIE = "shop_csrf"
LANGUAGE_COOKIE = "shop_lang"
CSRF_FIELD = "csrf"
COOKIE_DAYS = 30
MAX_FIELDS = 40  # a package's variables (20) and the form's own
NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "same-origin"}
# A page shared by every cookie-less visitor: browsers ask again each time (max-age=0), the CDN
# keeps it a minute (s-maxage), keyed on the language header and the cookies (infra/aws/edge.py).
EDGE_CACHE_SECONDS = 60
SHARED = {
    "Cache-Control": f"public, max-age=0, s-maxage={EDGE_CACHE_SECONDS}",
    "Vary": "Accept-Language, Cookie",
    "Referrer-Policy": "same-origin",
}
SHOP_COOKIES = (BASKET_COOKIE, PLAYER_COOKIE, CSRF_COOKIE)
# A form field carrying the token (an owner's template may add a form to any page).
_TOKEN_FIELD = re.compile(r"""name\s*=\s*["']?csrf\b""", re.IGNORECASE)


def client_ip(request: Request) -> str:
    """The visitor's address: in AWS the shop is reached through CloudFront, which names the
    viewer in `CloudFront-Viewer-Address` (`ip:port`); else the connection's. A caller of the
    API's own endpoint could write that header, as a headless shop passes `ip_address` to the
    storefront: the basket's address is what its client says, never an authorization."""
    viewer = request.headers.get("cloudfront-viewer-address", "")
    host = viewer.rpartition(":")[0]
    try:
        return str(ipaddress.ip_address(host))
    except ValueError:
        return connection_ip(request)


def _player(value: str | None) -> int | None:
    return int(value) if value and value.isascii() and value.isdigit() and len(value) <= 10 else None


def visitor(request: Request) -> Visitor:
    cookies = request.cookies
    csrf = cookies.get(CSRF_COOKIE, "")
    if not (16 <= len(csrf) <= 64 and csrf.replace("-", "").replace("_", "").isalnum()):
        csrf = ""
    return Visitor(
        basket_ident=(cookies.get(BASKET_COOKIE) or "")[:80] or None,
        player_id=_player(cookies.get(PLAYER_COOKIE)),
        csrf=csrf,
        accept_language=request.headers.get("accept-language", "")[:200],
        ip=client_ip(request),
        language=(cookies.get(LANGUAGE_COOKIE) or "")[:16],
        path=_own_address(request),
    )


def _own_address(request: Request) -> str:
    """A page's own path and query (the switcher's way back); "" for a form's answer."""
    if request.method != "GET":
        return ""
    if request.url.path == "/language":  # the switcher's own refusal: back home from there
        return "/"
    query = request.url.query
    return request.url.path + (f"?{query}" if query else "")


def page_visitor(request: Request) -> Visitor:
    """The visitor of a page: a first visit gets its CSRF token now (set with the response)."""
    found = visitor(request)
    if found.csrf:
        return found
    fresh = replace(found, csrf=secrets.token_urlsafe(24))
    request.state.new_csrf = fresh.csrf
    return fresh


async def visitor_dependency(request: Request) -> Visitor:
    """`page_visitor` as a dependency. Async because it reads only the request: FastAPI runs a
    sync dependency in a worker thread, and a cold start would pay for starting the pool."""
    return page_visitor(request)


VisitorDep = Annotated[Visitor, Depends(visitor_dependency)]


async def checked_form(request: Request) -> dict[str, str]:
    """The form's fields once its CSRF token matches the visitor's cookie; Forbidden otherwise."""
    fields = await form_fields(request, MAX_FIELDS)
    expected = visitor(request).csrf
    sent = fields.get(CSRF_FIELD, "")
    if not expected or not hmac.compare_digest(sent.encode(), expected.encode()):
        raise Forbidden("This form has expired or did not come from this shop: reload the page and try again")
    return fields


def _secure(request: Request, services: Services) -> bool:
    return services.settings.shop_url.startswith("https://") or request.url.scheme == "https"


def respond(request: Request, services: Services, result: ShopResult, *, shared: bool = False) -> Response:
    """A page (HTML with its policy, never framed; `no-store` unless `shared`) or a 303, with
    the cookies."""
    response: Response
    if result.redirect:
        response = RedirectResponse(result.redirect, status_code=303, headers=NO_STORE)
    else:
        response = HTMLResponse(
            result.html,
            status_code=result.status,
            headers={
                "Content-Security-Policy": result.csp,
                **(SHARED if shared else NO_STORE),
                "X-Content-Type-Options": "nosniff",
                "X-Frame-Options": "DENY",
                **result.headers,
            },
        )
    secure = _secure(request, services)
    options = {"httponly": True, "samesite": "lax", "secure": secure, "path": "/"}
    new_csrf = getattr(request.state, "new_csrf", None)
    if new_csrf:
        response.set_cookie(CSRF_COOKIE, new_csrf, max_age=COOKIE_DAYS * 86400, **options)  # type: ignore[arg-type]
    if result.basket is not None:
        if result.basket:
            response.set_cookie(BASKET_COOKIE, result.basket, max_age=COOKIE_DAYS * 86400, **options)  # type: ignore[arg-type]
        else:
            response.delete_cookie(BASKET_COOKIE, **options)  # type: ignore[arg-type]
    if result.language:
        response.set_cookie(LANGUAGE_COOKIE, result.language, max_age=365 * 86400, **options)  # type: ignore[arg-type]
    if result.player is not None:
        if result.player:
            response.set_cookie(PLAYER_COOKIE, str(result.player), max_age=COOKIE_DAYS * 86400, **options)  # type: ignore[arg-type]
        else:
            response.delete_cookie(PLAYER_COOKIE, **options)  # type: ignore[arg-type]
    return response


def shop_page(request: Request, services: Services, use_case: Callable[[], ShopResult]) -> Response:
    """Run a page or form use case; a domain error outside it (no shop, a refused form) is the
    branded error page, an unexpected one a plain 500 page that still names the way back."""
    try:
        result = use_case()
    except DomainError as error:
        return error_response(request, services, error)
    return respond(request, services, result)


def shared_page(request: Request, services: Services, use_case: Callable[[Visitor], ShopResult]) -> Response:
    """A page that does not depend on the player, for the visitor the request carries. With
    none of the shop's cookies it is shared at the edge when it is a 200 that changes no cookie
    and has no form (an owner's template may add one: that page is rendered again with a fresh
    token, and not shared); anyone else gets `shop_page`'s private page."""
    if any(request.cookies.get(name) for name in SHOP_COOKIES):
        return shop_page(request, services, lambda: use_case(page_visitor(request)))
    try:
        result = use_case(visitor(request))
        if _TOKEN_FIELD.search(result.html):
            result = use_case(page_visitor(request))
    except DomainError as error:
        return error_response(request, services, error)
    shared = (
        result.status == 200
        and not result.redirect
        and result.basket is None
        and result.player is None
        and not getattr(request.state, "new_csrf", None)
    )
    return respond(request, services, result, shared=shared)


def error_response(request: Request, services: Services, error: DomainError) -> Response:
    try:
        result = pages.not_found(services, page_visitor(request), error)
    except DomainError:  # no shop, or no store: nothing to brand the page with
        result = ShopResult(error.status, pages.bare_error(error), csp=pages.content_security_policy())
    except Exception:
        logger.exception("the shop's error page failed")
        result = ShopResult(error.status, pages.bare_error(error), csp=pages.content_security_policy())
    if isinstance(error, Throttled):  # a guard's 429 says when to try again
        result = replace(result, headers={**result.headers, "Retry-After": str(error.retry_after)})
    return respond(request, services, result)


FormDep = Annotated[dict[str, str], Depends(checked_form)]

__all__ = [
    "FormDep",
    "ServicesDep",
    "VisitorDep",
    "client_ip",
    "error_response",
    "respond",
    "shared_page",
    "shop_page",
    "visitor",
]


def shop_error(request: Request, status: int, title: str, detail: str) -> Response:
    """The runtime's error path for the shop (an unknown address, a refused CSRF token, a
    malformed request): the branded error page."""
    from webstore.services import get_services

    error = DomainError(detail)
    error.status, error.title = status, title
    return error_response(request, get_services(), error)
