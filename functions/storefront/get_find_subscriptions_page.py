"""GET /subscriptions/find/{token} — "Find my subscriptions": the form where a player asks for a
sign-in link by e-mail (HTML)."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.subscriptions import find_by_email

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/subscriptions/find/{token}",
    "getFindSubscriptionsPage",
    READ,
    "The hosted form where a player asks for a sign-in link to their subscriptions by e-mail",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str) -> Response:
    return render(
        lambda: find_by_email.show_form(svc, token), find_by_email.policy(), problem_title=find_by_email.TITLE
    )


handler = lambda_handler(ROUTE, endpoint)
