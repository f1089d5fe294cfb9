"""POST /account/totp/remove — turn the second factor off (with one's password)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, respond
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/account/totp/remove",
    "removeTotp",
    WRITE,
    "Turn the second factor off",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    return respond(session, lambda: account_pages.submit_totp_remove(svc, session, form, svc.now()))


handler = lambda_handler(ROUTE, endpoint)
