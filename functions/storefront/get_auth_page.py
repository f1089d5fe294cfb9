"""GET /auth/{basket_ident}?returnUrl= — the hosted page where a player names themselves (HTML)."""

from fastapi import Query
from fastapi.responses import HTMLResponse

from functions.deps import ServicesDep
from functions.pages import html_page
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.errors import DomainError
from webstore.storefront import auth_page, basket_auth

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
    basket_ident: str, svc: ServicesDep, return_url: str | None = Query(None, alias="returnUrl")
) -> HTMLResponse:
    try:
        prompt = basket_auth.open_auth_page(svc, basket_ident, return_url)
    except DomainError as error:
        page = auth_page.problem_page("Cannot log in to this basket", error.detail)
        return html_page(page, status=error.status, csp=auth_page.content_security_policy())
    return html_page(
        auth_page.form_page(prompt), status=200, csp=auth_page.content_security_policy(prompt.return_url)
    )


handler = lambda_handler(ROUTE, endpoint)
