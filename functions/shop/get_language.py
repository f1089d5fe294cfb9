"""GET /language — the language switcher: remember the visitor's language, back to the page."""

from fastapi import Request
from fastapi.responses import Response

from functions.runtime import READ, Interface, Route, lambda_handler
from functions.shop_deps import ServicesDep, shop_page
from webstore.shop import forms

ROUTE = Route(
    Interface.SHOP,
    "GET",
    "/language",
    "switchShopLanguage",
    READ,
    "The language switcher: remember the visitor's language (a cookie) and go back to the page",
    html=True,
)


async def endpoint(request: Request, svc: ServicesDep, lang: str = "", next: str = "/") -> Response:
    """`lang`: `en`, `de`, `fr`, `es` or `pt-BR`; `next`: a path of the shop to go back to."""
    return shop_page(request, svc, lambda: forms.switch_language(lang, next))


handler = lambda_handler(ROUTE, endpoint)
