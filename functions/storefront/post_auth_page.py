"""POST /auth/{basket_ident} — the auth form's submission: bind the basket, then 303 to returnUrl."""

from fastapi import Request
from fastapi.responses import RedirectResponse, Response

from functions.deps import ServicesDep
from functions.pages import form_fields, html_page
from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler
from webstore.errors import DomainError, Invalid
from webstore.storefront import auth_page, basket_auth

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/auth/{basket_ident}",
    "submitAuthPage",
    WRITE_AND_PUBLISH,
    "Log a player in to a basket (form post)",
    html=True,
)


async def endpoint(basket_ident: str, request: Request, svc: ServicesDep) -> Response:
    form = await form_fields(request)
    return_url = form.get("returnUrl") or request.query_params.get("returnUrl")
    username = form.get("username") or ""
    try:
        prompt = basket_auth.open_auth_page(svc, basket_ident, return_url)
    except DomainError as error:
        page = auth_page.problem_page("Cannot log in to this basket", error.detail)
        return html_page(page, status=error.status, csp=auth_page.content_security_policy())
    csp = auth_page.content_security_policy(prompt.return_url)
    try:
        target = basket_auth.authenticate(svc, prompt, username)
    except DomainError as error:
        if isinstance(error, Invalid) or error.field == "username":
            return html_page(
                auth_page.form_page(prompt, username=username, error=error.detail),
                status=error.status,
                csp=csp,
            )
        page = auth_page.problem_page("Cannot log in to this basket", error.detail, prompt.store.lang)
        return html_page(page, status=error.status, csp=csp)
    response = RedirectResponse(target, status_code=303)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "no-referrer"
    return response


handler = lambda_handler(ROUTE, endpoint)
