"""GET /auth/{basket_ident}/steam?returnUrl= — sign in through Steam: without an assertion,
303 to Steam's OpenID endpoint; with Steam's assertion (its return), verify it, bind the
basket to the Steam64 id and 303 to returnUrl."""

from fastapi import Query, Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.storefront import auth_page, steam_sign_in

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/auth/{basket_ident}/steam",
    "steamSignIn",
    # Opens the store's sealed Steam Web API key (the persona name).
    WRITE | {Access.GATEWAY_KEY},
    "Sign a player in to a basket through Steam (OpenID 2.0)",
    html=True,
)

TITLE = auth_page.TITLE


async def endpoint(
    svc: ServicesDep,
    basket_ident: str,
    request: Request,
    return_url: str | None = Query(None, alias="returnUrl"),
) -> Response:
    params = dict(request.query_params)
    if "openid.mode" not in params:
        return render(
            lambda: steam_sign_in.start(svc, basket_ident, return_url), problem_title=auth_page.TITLE
        )
    return render(
        lambda: steam_sign_in.finish(svc, basket_ident, return_url, params), problem_title=auth_page.TITLE
    )


handler = lambda_handler(ROUTE, endpoint)
