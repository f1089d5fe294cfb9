"""POST /mail/templates/{kind}/reset — the default e-mail instead of the owner's template."""

from fastapi import Path
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
    "/mail/templates/{kind}/reset",
    "resetMailTemplate",
    WRITE,
    "Send the default e-mail again instead of the owner's template (form post)",
    html=True,
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    fields: FormDep,
    kind: str = Path(max_length=40, pattern=r"^[a-z_]+$"),
) -> Response:
    del fields  # checked (CSRF); the action has no fields
    typed: dict[str, str] = {}
    return form(
        session,
        lambda: mail_pages.reset_template(svc, session, kind),
        lambda error: with_error(mail_pages.template_page(svc, session, kind, typed), error),
    )


handler = lambda_handler(ROUTE, endpoint)
