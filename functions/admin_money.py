"""What the payments, subscriptions and players routes share: a page body in the panel's
shell, and a form's outcome as Post/Redirect/Get (or the page again with the refusal)."""

from __future__ import annotations

from collections.abc import Callable

from webstore.admin.layout import csrf_field, panel_page
from webstore.admin.money_pages import PanelBody, Refusal
from webstore.admin.roles import Capability, allowed
from webstore.admin.sessions import StaffSession
from webstore.storefront.pages import PageResult, Safe


def in_shell(shown: PanelBody, session: StaffSession) -> PageResult:
    return PageResult(
        shown.status, panel_page(shown.title, shown.body, session=session, section=shown.section)
    )


def forms_for(session: StaffSession, capability: Capability) -> Safe | None:
    """The CSRF field for a role that may use the page's forms; None hides them."""
    return csrf_field(session) if allowed(session.role, capability) else None


def outcome(
    result: str | Refusal, session: StaffSession, page_again: Callable[[Refusal], PanelBody]
) -> PageResult:
    if isinstance(result, Refusal):
        return in_shell(page_again(result), session)
    return PageResult(redirect=result)
