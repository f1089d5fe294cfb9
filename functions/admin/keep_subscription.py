"""POST /subscriptions/{reference}/undo-cancel — take a pending cancellation back; 303 back to
the subscription, or the page again with why it was refused."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep
from functions.admin_money import forms_for, outcome
from functions.deps import ServicesDep
from functions.pages import render
from functions.runtime import WRITE_AND_PUBLISH, Interface, Route, lambda_handler
from webstore.admin import money_pages
from webstore.admin.roles import Capability, require
from webstore.storefront.pages import PageResult

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/subscriptions/{reference}/undo-cancel",
    "keepSubscription",
    WRITE_AND_PUBLISH,
    "Take a pending cancellation back",
    html=True,
)


async def endpoint(svc: ServicesDep, session: StaffDep, form: FormDep, reference: str) -> Response:
    def act() -> PageResult:
        require(session, Capability.PAYMENTS_WRITE)
        result = money_pages.subscription_action(
            svc, session.account_id, reference, "undo-cancel", form, by=session.email, now=svc.now()
        )
        return outcome(
            result,
            session,
            lambda refusal: money_pages.subscription_page(
                svc,
                session.account_id,
                reference,
                csrf=forms_for(session, Capability.PAYMENTS_WRITE),
                refusal=refusal,
            ),
        )

    return render(act)


handler = lambda_handler(ROUTE, endpoint)
