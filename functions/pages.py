"""Hosted pages (HTML routes): the response wrapper with the headers every page carries."""

from __future__ import annotations

from fastapi.responses import HTMLResponse


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
