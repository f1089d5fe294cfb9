"""POST /webhooks — add a webhook endpoint (form post; shows its secret once)."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.declarations import Access
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import webhook_pages
from webstore.admin.flow import with_error
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/webhooks",
    "createWebhook",
    WRITE | {Access.WEBHOOK_KEY},  # seals the new signing secret
    "Add a webhook endpoint (form post; shows its secret once)",
    html=True,
    capability=Capability.WEBHOOKS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: webhook_pages.add_endpoint(svc, session, fields),
        lambda error: with_error(webhook_pages.webhooks_page(svc, session, fields), error),
    )


handler = lambda_handler(ROUTE, endpoint)
