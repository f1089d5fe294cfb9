"""POST /account/totp/confirm — a code from the app turns the second factor on."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/account/totp/confirm",
    "confirmTotp",
    WRITE,
    "Turn the second factor on",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: account_pages.submit_totp_confirm(svc, session, form, svc.now()))


handler = lambda_handler(ROUTE, endpoint)
