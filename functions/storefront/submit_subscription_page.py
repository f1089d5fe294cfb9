"""POST /subscriptions/{manage_token} — the manage page's form: cancel at the end of the paid
period, or undo that; then 303 back to the page."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.forms import form_fields
from functions.pages import render
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.subscriptions import cancellation
from webstore.subscriptions import manage_page as page

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/subscriptions/{manage_token}",
    "submitSubscriptionPage",
    WRITE | {Access.WEBHOOK_KEY},
    "Cancel a subscription at the end of its period, or undo that (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, manage_token: str, request: Request) -> Response:
    form = await form_fields(request)
    submitted = cancellation.PageForm(
        action=form.get("action", ""),
        form_token=form.get("form_token", ""),
        reason=form.get("reason", ""),
        origin=request.headers.get("origin"),
    )
    return render(
        lambda: cancellation.submit_page(svc, manage_token, submitted),
        page.policy(),
        problem_title=page.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
