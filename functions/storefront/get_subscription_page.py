"""GET /subscriptions/{manage_token} — the player's manage-subscription page (HTML)."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.subscriptions import cancellation
from webstore.subscriptions import manage_page as page

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/subscriptions/{manage_token}",
    "getSubscriptionPage",
    READ | {Access.WEBHOOK_KEY},
    "The hosted page where a player sees and cancels their subscription",
    html=True,
)


async def endpoint(svc: ServicesDep, manage_token: str) -> Response:
    return render(lambda: cancellation.show_page(svc, manage_token), page.policy(), problem_title=page.TITLE)


handler = lambda_handler(ROUTE, endpoint)
