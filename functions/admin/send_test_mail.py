"""POST /mail/templates/{kind}/test — the typed e-mail template sent to the signed-in member."""

from fastapi import Path
from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import mail_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/mail/templates/{kind}/test",
    "sendTestMail",
    WRITE | {Access.MAIL_SEND},
    "Send the typed e-mail template to the signed-in member (form post; nothing saved)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    fields: FormDep,
    kind: str = Path(max_length=40, pattern=r"^[a-z_]+$"),
) -> Response:

    return form(
        session,
        lambda: mail_pages.send_test(svc, session, kind, fields),
        lambda error: with_error(mail_pages.template_page(svc, session, kind, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
