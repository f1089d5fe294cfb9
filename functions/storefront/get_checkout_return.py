"""GET /checkout/{basket_ident}/return — where Stripe sends the player back after paying (or
after 3-D Secure): settle the PaymentIntent, then the receipt."""

from typing import Annotated

from fastapi import Query
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.checkout import pages, stripe_checkout

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/checkout/{basket_ident}/return",
    "getCheckoutReturn",
    WRITE | {Access.GATEWAY_KEY},
    "Return from the payment processor",
    html=True,
    timeout_seconds=25,
)


async def endpoint(
    basket_ident: str,
    svc: ServicesDep,
    payment_intent: Annotated[str, Query(max_length=80)] = "",
) -> Response:
    return render(lambda: stripe_checkout.returned(svc, basket_ident, payment_intent), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
