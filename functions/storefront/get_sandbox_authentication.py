"""GET /sandbox/authentication/{token}/{charge_key} — the sandbox's stand-in for a bank's
check of an off-session renewal charge (HTML): a form that confirms it."""

from fastapi.responses import Response

from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.subscriptions import sandbox_authentication as sandbox

ROUTE = Route(
    Interface.STOREFRONT,
    "GET",
    "/sandbox/authentication/{token}/{charge_key}",
    "getSandboxAuthentication",
    READ,
    "The sandbox's page where a player authenticates a renewal charge it declined for that",
    html=True,
)


async def endpoint(svc: ServicesDep, token: str, charge_key: str) -> Response:
    return render(
        lambda: sandbox.show_page(svc, token, charge_key), sandbox.policy(), problem_title=sandbox.TITLE
    )


handler = lambda_handler(ROUTE, endpoint)
