"""POST /mail/messages/{event_id}/{kind}/resend — send one failed or unknown message again."""

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
    "/mail/messages/{event_id}/{kind}/resend",
    "resendMail",
    WRITE | {Access.MAIL_SEND},  # sends through SES itself, at once
    "Send one e-mail again (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    fields: FormDep,
    event_id: str = Path(max_length=64, pattern=r"^[A-Za-z0-9-]+$"),
    kind: str = Path(max_length=40, pattern=r"^[a-z_]+$"),
) -> Response:
    del fields  # checked (CSRF); the action has no fields
    return form(
        session,
        lambda: mail_pages.resend(svc, session, event_id, kind),
        lambda error: with_error(mail_pages.mail_page(svc, session), error),
    )


handler = lambda_handler(ROUTE, endpoint)
