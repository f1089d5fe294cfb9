"""GET /mail/templates/{kind} — panel → E-mails → one message's wording: the owner's template or a
starter, its variables, preview and "send me a test"."""

from fastapi import Path, Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import mail_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/mail/templates/{kind}",
    "getMailTemplate",
    READ,
    "One e-mail's wording: the owner's template, its variables",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(
    svc: ServicesDep,
    session: StaffDep,
    kind: str = Path(max_length=40, pattern=r"^[a-z_]+$"),
    done: str = Query("", max_length=200),
) -> Response:
    return show(session, lambda: mail_pages.template_page(svc, session, kind), done=done)


handler = lambda_handler(ROUTE, endpoint)
