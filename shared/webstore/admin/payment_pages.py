"""The payments pages (`/payments`, `/payments/{transaction}`): the search with one page of
results, one payment, and the payment's forms (refund, chargeback, note, resend), each
answering where to go next (Post/Redirect/Get) or raising the refusal (webstore.admin.flow
shows the page again). HTTP-free; the handlers add the session and the shell.

Messages after an action are fixed texts chosen by a code (`?done=refunded`), never text from
the URL.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping
from datetime import datetime
from urllib.parse import urlencode

from webstore.admin import payment_confirm, payments
from webstore.admin.flow import PanelPage
from webstore.admin.views import payments as payment_views
from webstore.admin.views.money import path, titled
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import DomainError, Invalid, NotFound
from webstore.html import Markup
from webstore.invoices import documents
from webstore.repo.payments import PaymentRecord
from webstore.services import Services

DONE = {
    "refunded": "Refunded. Never-fetched commands withdrawn, refund commands queued.",
    "partly-refunded": "Part of the payment was refunded; its credit note is below.",
    "chargeback": "Marked as a chargeback. Never-fetched commands withdrawn, chargeback commands queued.",
    "noted": "Note added.",
    "resent": "The payment's commands are queued again.",
    "already-resent": "Those commands were queued by the same form already; nothing more was queued.",
}


def payments_page(services: Services, account_id: int, query: Mapping[str, str]) -> PanelPage:
    """The search form and one page of results; a bad field shows the form with why (422)."""
    try:
        search = payments.parse_search(query)
    except Invalid as error:
        empty = payments.SearchResult([], None)
        body = payment_views.search_body(payments.PaymentSearch(), empty)
        return titled("Payments", body, "payments", error=error)
    result = payments.search_payments(services, account_id, search)
    return titled("Payments", payment_views.search_body(search, result), "payments")


def payment_page(
    services: Services,
    account_id: int,
    transaction: str,
    *,
    csrf: Callable[[], Markup | None],
    done: str | None = None,
    error: DomainError | None = None,
) -> PanelPage:
    """One payment; `csrf` (asked for once the page's reads are issued: the session's check
    shares their round trip) gives None for a role without payment actions (no forms)."""
    detail = payments.payment_detail(services, account_id, transaction)
    body = payment_views.detail_body(
        detail,
        csrf=csrf(),
        resend_id=secrets.token_hex(16),
        done=DONE.get(done or "", ""),
        documents=document_links(services, detail.payment),
    )
    return titled(f"Payment {transaction}", body, "payments", error=error)


def document_links(services: Services, payment: PaymentRecord) -> tuple[tuple[str, str], ...]:
    """The payment's invoice and credit notes: (number, the hosted document's URL)."""
    base = services.settings.storefront_url
    invoice = documents.invoice_path(payment)
    if payment.invoice is None or invoice is None:
        return ()
    found = [(payment.invoice.invoice_label, base + invoice)]
    for refund in payment.refunds:
        found.append(
            (
                refund.credit_note.credit_label,
                base + (documents.invoice_path(payment, refund.credit_note.number) or ""),
            )
        )
    return tuple(found)


def payment_url(transaction: str, done: str) -> str:
    return f"{path('payments', transaction)}?{urlencode({'done': done})}"


def payment_action(
    services: Services,
    account_id: int,
    transaction: str,
    action: str,
    form: Mapping[str, str],
    *,
    by: str,
    now: datetime,
) -> str:
    """Run one of the payment's forms: the URL to go to (a refusal is raised)."""

    def refund() -> str:
        after = payments.refund(
            services,
            account_id,
            transaction,
            by,
            now,
            form.get("amount", ""),
            withdraw=payment_confirm.withdraws(form),
        )
        return "refunded" if after.status is PaymentStatus.REFUND else "partly-refunded"

    def chargeback() -> str:
        payments.mark_chargeback(
            services, account_id, transaction, by, now, withdraw=payment_confirm.withdraws(form)
        )
        return "chargeback"

    def note() -> str:
        payments.add_note(services, account_id, transaction, form.get("note", ""), by, now)
        return "noted"

    def resend() -> str:
        queued = payments.resend(services, account_id, transaction, form.get("resend_id", ""), by, now)
        return "resent" if queued else "already-resent"

    steps: dict[str, Callable[[], str]] = {
        "refund": refund,
        "chargeback": chargeback,
        "notes": note,
        "resend": resend,
    }
    if action not in steps:
        raise NotFound("No such action")
    return payment_url(transaction, steps[action]())
