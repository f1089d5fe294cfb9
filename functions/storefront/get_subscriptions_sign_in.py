"""GET /subscriptions/find/{token}/{link} — a "Find my subscriptions" sign-in link: the address's
subscriptions and receipts at the store, once (HTML)."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.subscriptions import find_by_email

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/subscriptions/find/{token}/{link}",
    "getSubscriptionsSignIn",
    WRITE | {Access.WEBHOOK_KEY},
    "Open a one-time sign-in link: the subscriptions and receipts of an e-mail address at a store",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str, link: str) -> Response:
    return render(
        lambda: find_by_email.open_link(svc, token, link),
        find_by_email.policy(),
        problem_title=find_by_email.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
