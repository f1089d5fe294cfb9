"""POST /account/totp — start enrolling a second factor: the secret, shown once."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import account_pages

ROUTE = Route(
    Interface.ADMIN, "POST", "/account/totp", "startTotp", READ, "Start setting up a second factor", html=True
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep) -> Response:
    del form  # checked (CSRF): nothing is stored until the confirmation
    return show(session, lambda: account_pages.enrolment_page(svc, session))


handler = lambda_handler(ROUTE, endpoint)
