"""POST /settings/gateways — the Stripe keys (the secret key checked with Stripe first) and the
sandbox switch; the secrets are write-only (blank: kept). Answers the go-live page."""

from fastapi.responses import Response

from functions.admin_deps import FormDep, StaffDep, form
from functions.deps import ServicesDep
from functions.runtime import WRITE, Access, Interface, Route, lambda_handler
from webstore.admin import golive_pages
from webstore.admin.roles import Capability

ROUTE = Route(
    Interface.ADMIN,
    "POST",
    "/settings/gateways",
    "saveGateways",
    # Seals the Stripe secrets (and opens the ones a refused form carried).
    WRITE | {Access.WEBHOOK_KEY, Access.GATEWAY_KEY},
    "Save the payment gateways",
    html=True,
    timeout_seconds=29,  # Stripe's check, the catalog's export and import
    capability=Capability.SETTINGS_WRITE,
)


async def endpoint(svc: ServicesDep, session: StaffDep, fields: FormDep) -> Response:
    return form(
        session,
        lambda: golive_pages.save_stripe_action(
            svc, session.account_id, fields, actor=session.email, now=svc.now()
        ),
        lambda error: golive_pages.go_live_again(
            svc,
            session.account_id,
            fields,
            error,
            csrf_token=session.csrf_token,
            may_rotate=lambda: session.may(Capability.SERVERS_WRITE),
        ),
    )


handler = lambda_handler(ROUTE, endpoint)
