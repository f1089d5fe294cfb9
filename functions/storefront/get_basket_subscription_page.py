"""GET /checkout/{basket_ident}/subscription — the receipt's "manage your subscription" link:
303 to the subscription's signed manage page (the basket ident is the receipt's own secret)."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.subscriptions import cancellation
from webstore.subscriptions import manage_page as page

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/checkout/{basket_ident}/subscription",
    "getBasketSubscriptionPage",
    READ | {Access.WEBHOOK_KEY},
    "From a paid basket's receipt to its subscription's manage page",
    html=True,
)


async def endpoint(svc: ServicesDep, basket_ident: str) -> Response:
    return render(
        lambda: cancellation.page_of_basket(svc, basket_ident), page.policy(), problem_title=page.TITLE
    )


handler = lambda_handler(ROUTE, endpoint)
