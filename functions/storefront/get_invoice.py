"""GET /invoices/{token} — an invoice, or with `credit` one of its credit notes (HTML, printable).
The token is the payment's document link (webstore.invoices.documents): from the receipt, the
receipt e-mail and the panel's payment page."""

from fastapi import Query
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.checkout import pages
from webstore.invoices import documents

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/invoices/{token}",
    "getInvoice",
    READ,
    "An invoice or one of its credit notes, printable",
    html=True,
)


async def endpoint(
    svc: ServicesDep, token: str, credit: int | None = Query(None, ge=1, le=2_147_483_647)
) -> Response:
    return render(
        lambda: documents.document_page(svc, token, credit), pages.policy(), problem_title="Invoice"
    )


handler = lambda_handler(ROUTE, endpoint)
