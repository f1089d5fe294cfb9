"""POST /sandbox/authentication/{token}/{charge_key} — the player confirms the charge on the
sandbox's page: the renewal is completed as Stripe's `payment_intent.succeeded` completes it."""

from fastapi import Request
from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.subscriptions import sandbox_authentication as sandbox

ROUTE = Route(
    Interface.STOREFRONT,
    "POST",
    "/sandbox/authentication/{token}/{charge_key}",
    "submitSandboxAuthentication",
    WRITE,
    "Confirm a renewal charge on the sandbox's authentication page (form post)",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str, charge_key: str, request: Request) -> Response:
    origin = request.headers.get("origin")
    return render(
        lambda: sandbox.submit_page(svc, token, charge_key, origin),
        sandbox.policy(),
        problem_title=sandbox.TITLE,
    )


handler = lambda_handler(ROUTE, endpoint)
