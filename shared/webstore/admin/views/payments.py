"""The payments pages' bodies, rendered from templates/panel/payments/: the search form with
its page of results, and one payment with its lines, codes, commands (and their delivery
state), notes and the actions a role may take. HTTP-free; the handlers wrap them in the
panel's shell."""

from __future__ import annotations

from webstore.admin.payments import PLANNED, QUEUED, PaymentDetail, PaymentSearch, SearchResult
from webstore.admin.views.money import body, custom_data, with_query
from webstore.domain.payment_status import PaymentStatus
from webstore.html import Markup

STATE_TEXT = {
    QUEUED: "queued (waiting for the server)",
    PLANNED: "planned (being queued)",
}
DONE_TEXT = "delivered (acknowledged by the server, or deleted)"


def search_body(search: PaymentSearch, result: SearchResult) -> Markup:
    """The search form, the page of results, and the link to the next page (a filtered page can
    hold fewer than a page of matches and still have older ones: it says so)."""
    older = partial = ""
    if result.next_cursor is not None:
        older = with_query("/payments", search.query(result.next_cursor))
        if search.package_id is not None or (search.player is not None and (search.status or search.dated)):
            partial = " (this page searched part of the payments; older ones may match)"
    return body(
        "panel/payments/search.html",
        search=search,
        result=result,
        statuses=[("", "Any")] + [(s.value, s.description) for s in PaymentStatus.stored()],
        first=with_query("/payments", search.query(None)) if search.cursor else "",
        older=older,
        partial=partial,
    )


def detail_body(
    detail: PaymentDetail,
    *,
    csrf: Markup | None,
    resend_id: str,
    done: str = "",
    documents: tuple[tuple[str, str], ...] = (),
) -> Markup:
    """One payment. `csrf`: the session's CSRF field, None for a role that may not act (the
    forms are left out; the routes refuse such a role too)."""
    return body(
        "panel/payments/detail.html",
        detail=detail,
        custom=custom_data(detail.payment.custom),
        states=STATE_TEXT,
        delivered=DONE_TEXT,
        csrf=csrf,
        complete=detail.payment.status is PaymentStatus.COMPLETE,
        resend_id=resend_id,
        done=done,
        documents=documents,
    )
