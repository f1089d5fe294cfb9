"""What the payments and subscriptions routes share: each form of a payment or a subscription
through the panel's one form flow (functions.admin_deps.form)."""

from __future__ import annotations

from fastapi.responses import Response

from functions.admin_deps import form, forms_for
from webstore.admin import payment_pages, subscription_pages
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.services import Services


def act_on_payment(
    svc: Services, session: StaffSession, fields: dict[str, str], transaction: str, action: str
) -> Response:
    """A payment form (`action`: notes, refund, chargeback, resend): 303 back to the payment, or
    the payment again with why it was refused."""
    return form(
        session,
        lambda: payment_pages.payment_action(
            svc, session.account_id, transaction, action, fields, by=session.email, now=svc.now()
        ),
        lambda error: payment_pages.payment_page(
            svc,
            session.account_id,
            transaction,
            csrf=forms_for(session, Capability.PAYMENTS_WRITE),
            error=error,
        ),
    )


def act_on_subscription(
    svc: Services, session: StaffSession, fields: dict[str, str], reference: str, action: str
) -> Response:
    """A subscription form (`action`: cancel, undo-cancel): 303 back to the subscription, or the
    page again with why it was refused."""
    return form(
        session,
        lambda: subscription_pages.subscription_action(
            svc, session.account_id, reference, action, fields, by=session.email, now=svc.now()
        ),
        lambda error: subscription_pages.subscription_page(
            svc,
            session.account_id,
            reference,
            csrf=forms_for(session, Capability.PAYMENTS_WRITE),
            error=error,
        ),
    )
