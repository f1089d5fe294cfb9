"""The confirmation step of a payment's refund and chargeback: a form posted without
`confirm=yes` answers this page instead of acting, saying what the change will do — the amount
given back (and through which processor), the purchase commands no plugin has fetched yet
(taken out of their queues unless the owner keeps them), the commands it will queue (only for
what may have been delivered) and the purchase commands a plugin fetched but has not
acknowledged (they may have run) — with one button that confirms and a way back. Reads: the
payment's detail (webstore.admin.payments, 2 round trips), the store's packages (beside it) and
which grants are unfetched (one BatchGetItem).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from webstore.admin.flow import PanelPage
from webstore.admin.payments import QUEUED, payment_detail
from webstore.catalog import CommandTrigger
from webstore.domain.gateways import MANUAL
from webstore.errors import NotFound
from webstore.html import fragment
from webstore.money import display
from webstore.payments import planning
from webstore.repo import start_read
from webstore.repo.queue import QueueRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services

CONFIRMED = {"refund": CommandTrigger.REFUND, "chargeback": CommandTrigger.CHARGEBACK}


def withdraws(form: Mapping[str, str]) -> bool:
    """The confirmation's choice: take the never-fetched purchase commands out (the default)."""
    return form.get("keep") != "yes"


def needs_confirmation(action: str, form: dict[str, str]) -> bool:
    return action in CONFIRMED and form.get("confirm") != "yes"


def confirmation_page(
    services: Services, account_id: int, transaction: str, action: str, *, csrf_token: str, now: datetime
) -> PanelPage:
    """What `action` (refund, chargeback) will do to the payment, and the form that confirms it."""
    trigger = CONFIRMED.get(action)
    if trigger is None:
        raise NotFound("No such action")
    view_read = start_read(StoreRepository(services.table).operator_view, account_id)
    detail = payment_detail(services, account_id, transaction)
    payment = detail.payment
    grants = planning.granted(payment)
    withdrawn = QueueRepository(services.table).undelivered(account_id, grants)
    planned = planning.commands_for(payment.lines, view_read.result(), trigger, now)
    queued = planning.undoing(planned, payment, withdrawn)
    kept = planning.undoing(planned, payment, [])
    gone = {c.id for c in withdrawn}
    waiting = [
        s.command
        for s in detail.commands
        if s.plan == CommandTrigger.PURCHASE.value and s.state == QUEUED and s.command.id not in gone
    ]
    title = "Refund this payment?" if action == "refund" else "Mark this payment as a chargeback?"
    body = fragment(
        "panel/payments/confirm_status.html",
        title=title,
        action=action,
        csrf_token=csrf_token,
        transaction=transaction,
        amount=display(payment.amount, payment.currency),
        refunded=display(payment.refunded_amount, payment.currency) if payment.refunds else "",
        refundable=payment.refundable_amount,
        currency=payment.currency,
        player=payment.username,
        processor="" if payment.gateway == MANUAL.name else payment.gateway,
        queued=queued,
        kept=kept,
        withdrawn=withdrawn,
        waiting=waiting,
        servers=detail.server_names,
        already=trigger.value in payment.plans,
    )
    return PanelPage(title, body, "payments")
