"""POST /payments/{transaction}/chargeback — mark a payment as a chargeback (its chargeback
commands queued once); 303 back to the payment, or the payment again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.admin_money import act_on_payment
from functions.deps import ServicesDep
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/payments/{transaction}/chargeback",
    "markPaymentChargeback",
    WRITE,
    "Mark a payment as a chargeback",
    html=True,
    capability=Capability.PAYMENTS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, transaction: str) -> Response:
    return act_on_payment(svc, session, form, transaction, "chargeback")


handler = lambda_handler(ROUTE, endpoint)
