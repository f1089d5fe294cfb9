"""What the payments, subscriptions and players routes share: a page body in the panel's
shell, and a form's outcome as Post/Redirect/Get (or the page again with the refusal)."""

from __future__ import annotations

from collections.abc import Callable

from fastapi.responses import Response

from functions.admin_deps import respond
from webstore.admin import money_pages
from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.money_pages import PanelBody, Refusal
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe


def in_shell(shown: PanelBody, session: StaffSession) -> PageResult:
    return PageResult(
        shown.status, panel_page(shown.title, shown.body, session=session, section=shown.section)
    )


def forms_for(session: StaffSession, capability: Capability) -> Safe | None:
    """The CSRF field for a role that may use the page's forms; None hides them."""
    return csrf_field(session) if session.may(capability) else None


def outcome(
    result: str | Refusal, session: StaffSession, page_again: Callable[[Refusal], PanelBody]
) -> PageResult:
    if isinstance(result, Refusal):
        return in_shell(page_again(result), session)
    return PageResult(redirect=result)


def act_on_payment(
    svc: Services, session: StaffSession, form: dict[str, str], transaction: str, action: str
) -> Response:
    """A payment form (`action`: notes, refund, chargeback, resend): 303 back to the payment, or
    the payment again with why it was refused."""

    def act() -> PageResult:
        result = money_pages.payment_action(
            svc, session.account_id, transaction, action, form, by=session.email, now=svc.now()
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

    return respond(session, act)


def act_on_subscription(
    svc: Services, session: StaffSession, form: dict[str, str], reference: str, action: str
) -> Response:
    """A subscription form (`action`: cancel, undo-cancel): 303 back to the subscription, or the
    page again with why it was refused."""

    def act() -> PageResult:
        result = money_pages.subscription_action(
            svc, session.account_id, reference, action, form, by=session.email, now=svc.now()
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

    return respond(session, act)
