"""The payments pages' bodies: the search form with its page of results, and one payment with
its lines, codes, commands (and their delivery state), notes and the actions a role may take.
HTTP-free; the handlers wrap them in the panel's shell."""

from __future__ import annotations

from string import Template

from webstore.admin.layout import SWAP_CONTENT
from webstore.admin.payments import PLANNED, QUEUED, PaymentDetail, PaymentSearch, SearchResult
from webstore.admin.views.money import (
    custom_data,
    facts,
    hidden,
    link,
    money,
    notice,
    path,
    post_form,
    rows,
    table,
    text_input,
    when,
    with_query,
)
from webstore.domain.payment_status import PaymentStatus
from webstore.repo.payments import PaymentRecord
from webstore.storefront.pages import Safe, escape, fill

_STATE_TEXT = {
    QUEUED: "queued (waiting for the server)",
    PLANNED: "planned (being queued)",
}
DONE_TEXT = "delivered (acknowledged by the server, or deleted)"


def payment_rows(payments: list[PaymentRecord]) -> Safe:
    return rows(
        [
            [
                link(path("payments", p.transaction_id), p.transaction_id),
                when(p.created_at),
                p.username,
                ", ".join(line.name for line in p.lines),
                money(p.amount, p.currency),
                p.status.description,
            ]
            for p in payments
        ]
    )


def payments_table(payments: list[PaymentRecord], *, empty: str = "No payments match.") -> Safe:
    return table(
        ["Transaction", "Date", "Player", "Packages", "Amount", "Status"], payment_rows(payments), empty=empty
    )


_SEARCH = Template(
    '<form method="get" action="/payments" class="search" role="search" '
    + SWAP_CONTENT
    + ">$player$transaction$package"
    '<label for="status">Status</label><select id="status" name="status">$statuses</select>'
    '$date_from$date_to<button type="submit">Search</button> <a href="/payments">Clear</a></form>'
)


def search_form(search: PaymentSearch) -> Safe:
    chosen = search.status.value if search.status else ""
    options = [("", "Any")] + [(s.value, s.description) for s in PaymentStatus.stored()]
    statuses = Safe(
        "".join(
            f'<option value="{escape(v)}"{" selected" if v == chosen else ""}>{escape(t)}</option>'
            for v, t in options
        )
    )
    return fill(
        _SEARCH,
        player=text_input("player", "Player (name or UUID)", search.player or ""),
        transaction=text_input("transaction", "Transaction", search.transaction or "", hint="tbx-…"),
        package=text_input("package", "Package id", str(search.package_id or ""), kind="number"),
        statuses=statuses,
        date_from=text_input(
            "from", "From", search.date_from.isoformat() if search.date_from else "", kind="date"
        ),
        date_to=text_input("to", "To", search.date_to.isoformat() if search.date_to else "", kind="date"),
    )


def search_body(search: PaymentSearch, result: SearchResult) -> Safe:
    """The search form, the page of results, and the link to the next page (a filtered page can
    hold fewer than a page of matches and still have older ones: it says so)."""
    more = Safe("")
    if result.next_cursor is not None:
        href = with_query("/payments", search.query(result.next_cursor))
        partial = (
            " (this page searched part of the payments; older ones may match)"
            if (
                search.package_id is not None
                or (search.player is not None and (search.status or search.dated))
            )
            else ""
        )
        more = fill(
            Template('<p class="pager"><a id="next" href="$href">Older payments</a>$partial</p>'),
            href=href,
            partial=partial,
        )
    first = Safe("")
    if search.cursor:
        first = link(with_query("/payments", search.query(None)), "Newest")
    return Safe(
        search_form(search)
        + notice(result.notice, css="help")
        + payments_table(result.payments)
        + Safe(f'<nav class="pages">{first}{more}</nav>')
    )


# --- one payment ----------------------------------------------------------------------------------


def _lines(payment: PaymentRecord) -> Safe:
    return table(
        ["Package", "Quantity", "Paid", "For", "Variables"],
        rows(
            [
                [
                    f"{line.name} (#{line.package_id})",
                    str(line.quantity),
                    money(line.price, payment.currency),
                    line.username,
                    ", ".join(f"{k} = {v}" for k, v in sorted(line.variables.items())),
                ]
                for line in payment.lines
            ]
        ),
        empty="No lines.",
    )


def _commands(detail: PaymentDetail) -> Safe:
    shown = table(
        ["Command", "Server", "Trigger", "Player", "State"],
        rows(
            [
                [
                    Safe(f"<code>{escape(state.command.command)}</code>"),
                    detail.server_names.get(state.command.server_id, f"#{state.command.server_id}"),
                    state.plan,
                    state.command.username,
                    _STATE_TEXT.get(state.state, DONE_TEXT),
                ]
                for state in detail.commands
            ]
        ),
        empty="This payment queued no commands.",
    )
    rest = detail.commands_total - len(detail.commands)
    if rest > 0:
        shown = Safe(shown + notice(f"{rest} more commands are not listed.", css="help"))
    return shown


def _notes(payment: PaymentRecord) -> Safe:
    if not payment.notes:
        return Safe('<p class="empty">No notes.</p>')
    return Safe(
        '<ul class="notes">'
        + "".join(
            f"<li><time>{escape(when(n.created_at))}</time> {escape(n.note)}</li>" for n in payment.notes
        )
        + "</ul>"
    )


def _resends(payment: PaymentRecord) -> Safe:
    if not payment.resends:
        return Safe("")
    return Safe(
        "<h3>Resent</h3><ul>"
        + "".join(
            f"<li>{escape(when(r.at))}: {r.commands} commands by {escape(r.by)}</li>" for r in payment.resends
        )
        + "</ul>"
    )


_NOTE_FIELD = Safe(
    '<label for="note">Note</label><textarea id="note" name="note" maxlength="1000" required></textarea>'
)


def _actions(payment: PaymentRecord, csrf: Safe, resend_id: str) -> Safe:
    base = path("payments", payment.transaction_id)
    forms = []
    complete = payment.status is PaymentStatus.COMPLETE
    if complete:  # refund and chargeback each ask for confirmation, and sit apart (not side by side)
        forms.append(post_form(f"{base}/refund", "Refund…", csrf, css="action", danger=True))
        forms.append(post_form(f"{base}/resend", "Resend commands", csrf, hidden("resend_id", resend_id)))
    note = _NOTE_FIELD
    forms.append(post_form(f"{base}/notes", "Add note", csrf, note, css="note"))
    if complete:
        forms.append(post_form(f"{base}/chargeback", "Mark as chargeback…", csrf, css="action", danger=True))
    return Safe('<section class="actions"><h2>Actions</h2>' + "".join(forms) + "</section>")


def detail_body(detail: PaymentDetail, *, csrf: Safe | None, resend_id: str, done: str = "") -> Safe:
    """One payment. `csrf`: the session's CSRF field, None for a role that may not act (the
    forms are left out; the routes refuse such a role too)."""
    p = detail.payment
    summary = facts(
        [
            ("Status", p.status.description),
            ("Amount", money(p.amount, p.currency)),
            ("Date", when(p.created_at)),
            ("Player", link(path("players", p.username), p.username)),
            ("UUID", p.uuid or "—"),
            ("E-mail", p.email or "—"),
            ("Gateway", p.gateway),
            ("Country", p.country or "—"),
            ("Coupons", ", ".join(p.coupons) or "—"),
            (
                "Gift cards",
                ", ".join(f"{g.card_number} ({money(g.amount, p.currency)})" for g in p.giftcards) or "—",
            ),
            ("Creator code", p.creator_code or "—"),
            (
                "Subscription",
                link(path("subscriptions", p.recurring_payment_reference), p.recurring_payment_reference)
                if p.recurring_payment_reference
                else "—",
            ),
        ]
    )
    custom = custom_data(p.custom)
    parts = [
        notice(done),
        summary,
        Safe("<h2>Packages</h2>"),
        _lines(p),
        Safe("<h2>Commands</h2>"),
        _commands(detail),
        _resends(p),
        Safe("<h2>Notes</h2>"),
        _notes(p),
    ]
    if custom:
        parts.append(Safe(f"<h2>Custom data</h2><pre>{escape(custom)}</pre>"))
    if csrf is not None:
        parts.append(_actions(p, csrf, resend_id))
    return Safe("".join(parts))
