"""GET /go-live — taking real payments: Stripe (status, webhook URL, keys' form), the shop
developer's headless URL and token, each server's plugin URL (secrets never shown), the e-mail
domain's status (asked of SES: `Access.MAIL_CHECK`)."""

from fastapi import Query
from fastapi.responses import Response

from functions.admin_deps import StaffDep, show
from functions.deps import ServicesDep
from functions.runtime import READ, Access, Interface, Route, lambda_handler
from webstore.admin import golive_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "GET",
    "/go-live",
    "getGoLive",
    READ | {Access.MAIL_CHECK},
    "Go live: Stripe, keys and addresses",
    html=True,
    capability=Capability.SETTINGS_READ,
)


async def endpoint(svc: ServicesDep, session: StaffDep, done: str = Query("", max_length=200)) -> Response:
    return show(
        session,
        lambda: golive_pages.go_live_page(
            svc,
            session.account_id,
            csrf_token=session.csrf_token,
            may_write=lambda: session.may(Capability.SETTINGS_WRITE),
            may_rotate=lambda: session.may(Capability.SERVERS_WRITE),
        ),
        done=done,
    )


handler = lambda_handler(ROUTE, endpoint)
