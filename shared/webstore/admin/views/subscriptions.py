"""The subscriptions pages' bodies: the store's recurring payments, and one of them with its
payments and the cancel-at-period-end form (or its undo). HTTP-free."""

from __future__ import annotations

from string import Template

from webstore.admin.subscriptions import SubscriptionPage
from webstore.admin.views.money import (
    facts,
    link,
    money,
    notice,
    path,
    post_form,
    rows,
    table,
    text_input,
    when,
)
from webstore.recurring import RecurringPayment
from webstore.storefront.pages import Safe, fill


def _period(recurring: RecurringPayment) -> str:
    unit = recurring.period_unit + ("s" if recurring.period_length != 1 else "")
    return f"every {recurring.period_length} {unit}"


def _state(recurring: RecurringPayment) -> str:
    if recurring.ongoing and recurring.cancel_requested_at is not None:
        return f"{recurring.status.description}, ends {when(recurring.next_payment_at)}"
    return recurring.status.description


def list_body(page: SubscriptionPage) -> Safe:
    body = rows(
        [
            [
                link(path("subscriptions", r.reference), r.reference),
                r.username,
                ", ".join(line.name for line in r.lines),
                f"{money(r.amount, r.currency)} {_period(r)}",
                _state(r),
                when(r.next_payment_at) if r.ongoing else "—",
            ]
            for r in page.subscriptions
        ]
    )
    more = Safe("")
    if page.next_below is not None:
        more = fill(
            Template('<nav class="pages"><a id="next" href="/subscriptions?below=$below">Older</a></nav>'),
            below=str(page.next_below),
        )
    return Safe(
        table(
            ["Reference", "Player", "Packages", "Amount", "Status", "Next payment"],
            body,
            empty="No subscriptions yet.",
        )
        + more
    )


def detail_body(recurring: RecurringPayment, *, csrf: Safe | None, done: str = "") -> Safe:
    """One subscription. `csrf` None: a role that may not act (no forms)."""
    history = recurring.payment_history or [recurring.reference]
    summary = facts(
        [
            ("Status", _state(recurring)),
            ("Player", link(path("players", recurring.username), recurring.username)),
            ("Packages", ", ".join(f"{line.quantity} x {line.name}" for line in recurring.lines)),
            ("Amount", f"{money(recurring.amount, recurring.currency)} {_period(recurring)}"),
            ("Started", when(recurring.created_at)),
            ("Next payment", when(recurring.next_payment_at) if recurring.ongoing else "—"),
            ("Failed attempts", str(recurring.fail_count)),
            ("Cancellation requested", when(recurring.cancel_requested_at)),
            ("Reason", recurring.cancel_reason or "—"),
            ("Ended", when(recurring.cancelled_at)),
        ]
    )
    payments = Safe(
        "<h2>Payments</h2><ul>"
        + "".join(f"<li>{link(path('payments', txn), txn)}</li>" for txn in reversed(history))
        + "</ul>"
    )
    parts = [notice(done), summary, payments]
    if csrf is not None and recurring.ongoing:
        base = path("subscriptions", recurring.reference)
        if recurring.cancel_requested_at is None:
            reason = text_input(
                "reason", "Reason (sent with the webhook event)", hint="Cancelled by the store"
            )
            parts.append(
                post_form(
                    f"{base}/cancel",
                    "Cancel at the end of the period",
                    csrf,
                    reason,
                    css="action",
                    danger=True,
                )
            )
        else:
            parts.append(post_form(f"{base}/undo-cancel", "Keep the subscription", csrf))
    return Safe("".join(parts))
