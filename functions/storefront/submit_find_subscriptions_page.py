"""POST /subscriptions/find/{token} — the form's e-mail: a sign-in link is mailed when the address
paid at the store; the same answer either way (HTML)."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.subscriptions import find_by_email

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/subscriptions/find/{token}",
    "submitFindSubscriptionsPage",
    WRITE,  # the link's item and its mail's outbox item (the mail consumer sends it)
    "E-mail a one-time sign-in link to the subscriptions and receipts of an address (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str, request: Request) -> Response:
    form = await form_fields(request)
    return render(
        lambda: find_by_email.request_link(svc, token, form.get("email", "")),
        find_by_email.policy(),
        problem_title=find_by_email.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
