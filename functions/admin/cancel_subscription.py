"""POST /subscriptions/{reference}/cancel — cancel a subscription at the end of its paid
period; 303 back to the subscription, or the page again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.admin_money import act_on_subscription
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/subscriptions/{reference}/cancel",
    "cancelSubscriptionAtPeriodEnd",
    WRITE,
    "Cancel a subscription at the end of its paid period",
    html=True,
    capability=Capability.PAYMENTS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, reference: str) -> Response:
    return act_on_subscription(svc, session, form, reference, "cancel")


handler = lambda_handler(ROUTE, endpoint)
