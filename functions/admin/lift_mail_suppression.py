"""POST /mail/suppressions/lift — send to a bounced or complained address again (form post)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import mail_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/mail/suppressions/lift",
    "liftMailSuppression",
    WRITE,
    "Send e-mail to a suppressed address again (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: mail_pages.lift_suppression(svc, session, fields),
        lambda error: with_error(mail_pages.mail_page(svc, session), error),
    )


handler = lambda_handler(ROUTE, endpoint)
