"""POST /payments/{transaction}/refund — refund a payment (through its processor first; its
refund commands queued once); 303 back to the payment, or the payment again with why not."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.admin_money import act_on_payment
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/payments/{transaction}/refund",
    "refundPayment",
    WRITE | {Access.GATEWAY_KEY},
    "Refund a payment (through its processor first)",
    html=True,
    capability=Capability.PAYMENTS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, transaction: str) -> Response:
    return act_on_payment(svc, session, form, transaction, "refund")


handler = lambda_handler(ROUTE, endpoint)
