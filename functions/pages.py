"""Hosted pages (HTML routes): the one way a page use case becomes a response, and the one
error path (a domain error is the common problem page, never a JSON body)."""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from functions.observability import logger
from webstore.errors import DomainError, Throttled
from webstore.html import PageResult
from webstore.html.player import (
    UNBRANDED,
    brand_scope,
    content_security_policy,
    current_brand,
    problem_page,
    request_language,
)
from webstore.shop.i18n import chosen_language, html_lang

UNEXPECTED = "Something went wrong on our side; please try again in a moment."
NO_STORE = {"Cache-Control": "no-store", "Referrer-Policy": "no-referrer"}

# How a domain error becomes a page: the hosted pages' problem page, unless the interface's
# dependencies set their own for the request (the control panel's, inside its shell's style).
problem_renderer: ContextVar[Callable[[str, str], str]] = ContextVar(
    "problem_renderer", default=lambda title, message: problem_page(title, message)
)


def html_page(text: str, *, status: int, csp: str) -> HTMLResponse:
    """HTML that is never cached, framed, sniffed or leaked through the Referer header."""
    return HTMLResponse(
        text,
        status_code=status,
        headers={
            "Content-Security-Policy": csp,
            **NO_STORE,
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
        },
    )


def _branded_policy() -> str | None:
    """A problem page in the store's brand needs its colours and logo allowed (it has no form);
    an unbranded one keeps the route's policy."""
    brand = current_brand()
    return None if brand == UNBRANDED else brand.policy()


def render(
    use_case: Callable[[], PageResult], csp: str | None = None, *, problem_title: str | None = None
) -> Response:
    """Run a hosted page's use case. `csp`: the route's policy (a result may bring its own);
    a domain error becomes the problem page titled `problem_title` (else the error's title), in
    the store's brand when the use case had read the store (`webstore.html.player.use_brand`)."""
    retry_after: int | None = None
    problem = problem_renderer.get()
    with brand_scope():
        try:
            result = use_case()
        except DomainError as error:
            page = problem(problem_title or error.title, error.detail)
            result = PageResult(error.status, page, csp=_branded_policy())
            retry_after = error.retry_after if isinstance(error, Throttled) else None
        except Exception:  # a player's browser shows a page, never a JSON body
            logger.exception("unhandled error on a hosted page")
            result = PageResult(500, problem("Something went wrong", UNEXPECTED), csp=_branded_policy())
    if result.redirect:
        return RedirectResponse(result.redirect, status_code=303, headers=NO_STORE)
    response = html_page(
        result.html, status=result.status, csp=result.csp or csp or content_security_policy()
    )
    if retry_after is not None:
        response.headers["Retry-After"] = str(retry_after)
    return response


LANGUAGE_COOKIE = "webstore_lang"


class PageLanguage:
    """The hosted pages' language wishes (docs/shop.md, "The hosted pages"): `?lang=de` (the
    shop's switcher carries the player's pick to the checkout that way; remembered in the
    `webstore_lang` cookie for the pages after it: the receipt, the manage page), else that
    cookie, and the Accept-Language header; `webstore.html.player.page_language` weighs them
    against the store's language."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request = Request(scope)
        asked = chosen_language(request.query_params.get("lang"))
        chosen = asked or chosen_language(request.cookies.get(LANGUAGE_COOKIE))
        request_language(
            html_lang(chosen) if chosen else "", request.headers.get("accept-language", "")[:200]
        )
        if not asked:
            await self.app(scope, receive, send)
            return
        secure = "; Secure" if scope.get("scheme") == "https" else ""
        cookie = (
            f"{LANGUAGE_COOKIE}={html_lang(asked)}; Max-Age=31536000; Path=/; HttpOnly; SameSite=lax{secure}"
        )

        async def remembering(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [*message.get("headers", []), (b"set-cookie", cookie.encode())]
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, remembering)
