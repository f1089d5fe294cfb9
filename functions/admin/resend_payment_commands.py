"""POST /payments/{transaction}/resend — queue a payment's commands again, once per form;
303 back to the payment, or the payment again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.admin_money import forms_for, outcome
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability, require
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/payments/{transaction}/resend",
    "resendPaymentCommands",
    WRITE,
    "Queue a payment's commands again (once per form)",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, transaction: str) -> Response:
    def act() -> PageResult:
        require(session, Capability.PAYMENTS_WRITE)
        result = money_pages.payment_action(
            svc, session.account_id, transaction, "resend", form, by=session.email, now=svc.now()
        )
        return outcome(
            result,
            session,
            lambda refusal: money_pages.payment_page(
                svc,
                session.account_id,
                transaction,
                csrf=forms_for(session, Capability.PAYMENTS_WRITE),
                refusal=refusal,
            ),
        )

    return render(act)


handler = lambda_handler(ROUTE, endpoint)
