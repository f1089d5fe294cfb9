"""Hosted pages (HTML routes): the response wrapper with the headers every page carries."""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import parse_qs

from fastapi import Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from functions.runtime import logger
from webstore.checkout import pages as checkout_pages
from webstore.checkout.checkout import PageResult
from webstore.errors import DomainError

UNEXPECTED = "Something went wrong on our side; please try again in a moment."


def html_page(text: str, *, status: int, csp: str) -> HTMLResponse:
    """HTML that is never cached, framed, sniffed or leaked through the Referer header."""
    return HTMLResponse(
        text,
        status_code=status,
        headers={
            "Content-Security-Policy": csp,
            "Cache-Control": "no-store",
            "Referrer-Policy": "no-referrer",
            "X-Content-Type-Options": "nosniff",
            "X-Frame-Options": "DENY",
        },
    )


async def form_fields(request: Request, max_fields: int = 10) -> dict[str, str]:
    """The first value of each field of a form-encoded body (python-multipart is not needed
    for a handful of fields); a body with more fields than allowed reads as empty."""
    raw = (await request.body()).decode("utf-8", errors="replace")
    try:
        parsed = parse_qs(raw, keep_blank_values=True, max_num_fields=max_fields)
    except ValueError:
        return {}
    return {name: values[0] for name, values in parsed.items() if values}


def render(use_case: Callable[[], PageResult], csp: str) -> Response:
    """Run a hosted page's use case; its errors become HTML pages, not JSON bodies (a player's
    browser shows the page; an unexpected error is logged and answers a 500 page)."""
    try:
        result = use_case()
    except DomainError as error:
        result = PageResult(error.status, checkout_pages.message_page(error.title, error.detail))
    except Exception:
        logger.exception("unhandled error on a hosted page")
        result = PageResult(500, checkout_pages.message_page("Something went wrong", UNEXPECTED))
    if result.redirect:
        return RedirectResponse(result.redirect, status_code=303, headers={"Cache-Control": "no-store"})
    return html_page(result.html, status=result.status, csp=csp)
