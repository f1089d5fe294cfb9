"""GET /renewal-payments/{token}/{charge_key} — where a player completes a Stripe renewal charge
their bank wants them to authenticate (HTML + Stripe.js); Stripe's webhook records it."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.subscriptions import stripe_authentication as authentication

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/renewal-payments/{token}/{charge_key}",
    "getRenewalPaymentPage",
    READ | {Access.GATEWAY_KEY},
    "The page where a player completes a renewal payment their bank asked them to authenticate",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str, charge_key: str) -> Response:
    return render(
        lambda: authentication.show_page(svc, token, charge_key), problem_title=authentication.TITLE
    )


handler = lambda_handler(ROUTE, endpoint)
