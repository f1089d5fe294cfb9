"""GET /mail — panel → E-mails: the messages on, sender settings, the message log."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Interface, Route, lambda_handler
from webstore.admin import mail_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/mail",
    "getMail",
    READ,
    "E-mails: settings and the message log",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(session, lambda: mail_pages.mail_page(svc, session), done=done)


handler = lambda_handler(ROUTE, endpoint)
