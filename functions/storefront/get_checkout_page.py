"""GET /checkout/{basket_ident} — the hosted checkout page behind `links.checkout`."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.checkout import checkout, pages

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/checkout/{basket_ident}",
    "getCheckoutPage",
    READ | {Access.GATEWAY_KEY},  # creates the Stripe PaymentIntent of a Stripe store
    "Checkout page",
    html=True,
)


async def endpoint(basket_ident: str, svc: ServicesDep) -> Response:
    return render(lambda: checkout.checkout_page(svc, basket_ident), pages.policy())


handler = lambda_handler(ROUTE, endpoint)
