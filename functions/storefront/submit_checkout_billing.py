"""POST /checkout/{basket_ident}/billing — the checkout's billing country (postal code, VAT ID):
the basket's tax is calculated for it, then back to the checkout page."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.checkout import checkout, pages, tax_details

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/checkout/{basket_ident}/billing",
    "submitCheckoutBilling",
    WRITE | {Access.GATEWAY_KEY},  # a Stripe Tax store's calculation uses its Stripe key
    "Set the checkout's billing country (form post)",
    html=True,
)


async def endpoint(basket_ident: str, request: Request, svc: ServicesDep) -> Response:
    form = await form_fields(request)
    return render(
        lambda: tax_details.set_billing(
            svc,
            basket_ident,
            country=form.get("billing_country", ""),
            postal_code=form.get("billing_postal_code", ""),
            vat_id=form.get("vat_id", ""),
            ip_country=tax_details.viewer_country(request.headers.get("cloudfront-viewer-country")),
            checkout_url=checkout.checkout_url(svc, basket_ident),
        ),
        pages.policy(),
    )


handler = lambda_handler(ROUTE, endpoint)
