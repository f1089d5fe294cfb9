"""POST /auth/{basket_ident} — the auth form's submission: bind the basket, then 303 to returnUrl."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.storefront import auth_page

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/auth/{basket_ident}",
    "submitAuthPage",
    WRITE,
    "Log a player in to a basket (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, basket_ident: str, request: Request) -> Response:
    form = await form_fields(request)
    return_url = form.get("returnUrl") or request.query_params.get("returnUrl")
    username = form.get("username") or ""
    return render(
        lambda: auth_page.submit(
            svc, basket_ident, return_url, username, link_discord=form.get("discord") == "1"
        ),
        problem_title=auth_page.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
