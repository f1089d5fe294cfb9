"""GET /auth/{basket_ident}?returnUrl= — the hosted page where a player names themselves (HTML)."""

from fastapi import Query
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.storefront import auth_page

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/auth/{basket_ident}",
    "getAuthPage",
    READ,
    "The hosted basket login page",
    html=True,
)


async def endpoint(
    svc: ServicesDep,
    basket_ident: str,
    return_url: str | None = Query(None, alias="returnUrl"),
    discord: str = Query("", max_length=1),
) -> Response:
    """`discord=1`: the "Also link my Discord account" box ticked (`/discord/link?store=`)."""
    return render(
        lambda: auth_page.show(svc, basket_ident, return_url, link_discord=discord == "1"),
        problem_title=auth_page.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
