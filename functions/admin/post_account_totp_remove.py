"""POST /account/totp/remove — turn the second factor off (with one's password)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages
from webstore.admin.flow import with_error

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/account/totp/remove",
    "removeTotp",
    WRITE,
    "Turn the second factor off",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: account_pages.remove_totp(svc, session, fields, svc.now()),
        lambda error: with_error(account_pages.account_page(svc, session), error),
    )


handler = lambda_handler(ROUTE, endpoint)
