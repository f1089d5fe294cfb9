"""POST /account/totp/confirm — a code from the app turns the second factor on."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import account_pages
from webstore.admin.flow import with_error

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/account/totp/confirm",
    "confirmTotp",
    WRITE,
    "Turn the second factor on",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: account_pages.confirm_totp(svc, session, fields, svc.now()),
        lambda error: with_error(
            account_pages.enrolment_page(
                svc, session, sealed=account_pages.kept_enrolment(fields, error.field)
            ),
            error,
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
