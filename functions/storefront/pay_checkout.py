"""POST /checkout/{basket_ident}/pay — the checkout form's submission: charge once, fulfil, redirect."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.checkout import checkout, pages

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/checkout/{basket_ident}/pay",
    "payCheckout",
    WRITE | {Access.GATEWAY_KEY},
    "Pay for a basket (form post)",
    html=True,
    timeout_seconds=25,
)


async def endpoint(basket_ident: str, request: Request, svc: ServicesDep) -> Response:
    form = await form_fields(request)
    key, card = form.get("attempt_key", ""), form.get("card_number", "")
    shown = form.get("amount_due")
    consent = bool(form.get("subscription_consent"))
    email = form.get("email")
    return render(
        lambda: checkout.pay_form(svc, basket_ident, key, card, shown, consent=consent, email=email),
        pages.policy(),
    )


handler = lambda_handler(ROUTE, endpoint)
