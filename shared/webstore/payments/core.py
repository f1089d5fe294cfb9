"""The payments core: what every paid payment adds to the transaction that records it, whoever
took the money (the hosted checkout and the operator's createPayment through
`payments.recording.fulfil`, a subscription's renewal, a tier upgrade).

- Its id is taken once, inside that transaction, from the account's `payment` sequence
  (`IdAllocation.take`, repo/sequences.py): the id, the transaction id built from it and the
  sequence update commit together or not at all.
- Its invoice number is taken the same way, from the store's series of the payment's year
  (`take_invoice_number`, webstore.domain.invoices), by `add_paid_payment`: every source gets
  one, dense and never reused, without a round trip of its own (the sequences item is already
  in the payment's read and its update already in the transaction).
- `add_paid_payment`: the order record (the idempotency of the payment source), then the six
  effects of money coming in: community goal progress, the store stats, the day's figures, the
  buyer's spend this month, the buyer's player record and counters, the payment's pointer
  under the buyer's e-mail address (`repo.email_lookup`, "Find my subscriptions"), and the
  payment itself with its search keys (written with the payment, `PaymentRepository.item`)
  and the first chunk of its commands (`add_payment_with_commands`, last: the chunk fills the room left).
- Retries on contention follow the one policy, `webstore.contention`.

What differs between the sources stays with them: the checkout's coupons, gift cards, purchase
limits, new tiers and subscriptions (`payments.recording`); a renewal's next cycle and tiers
(`subscriptions.renewals`); an upgrade's moved tier (`subscriptions.upgrades`).
"""

from __future__ import annotations

import secrets
from datetime import datetime
from decimal import Decimal

from webstore.catalog import GoalStatus
from webstore.domain.invoices import INVOICE_SERIES, DocumentNumber, series_of
from webstore.payments import planning
from webstore.repo import Transaction
from webstore.repo.daily_stats import DailyStatsRepository
from webstore.repo.email_lookup import EmailLookupRepository
from webstore.repo.payment_effects import EffectReads, PaymentEffectsRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.queue import QueuedCommand, QueueRepository
from webstore.repo.sequences import IdAllocation
from webstore.repo.users import User


def take_payment_id(ids: IdAllocation) -> int:
    """The new payment's id, taken from the sequences as read, in the transaction that writes
    the payment (`ids.add_to(tx)`): Conflict past 32 bits."""
    return ids.take("payment")[0]


def take_invoice_number(ids: IdAllocation, paid_at: datetime) -> DocumentNumber:
    """The payment's invoice number, next in the store's series of `paid_at`'s year, taken from
    the sequences as read in the transaction that writes the payment (`ids.add_to(tx)`)."""
    sequence, year = series_of(INVOICE_SERIES, paid_at)
    return DocumentNumber(year=year, number=ids.take(sequence)[0])


def add_paid_payment(
    tx: Transaction,
    reads: EffectReads,
    payment: PaymentRecord,
    buyer: User,
    *,
    email: str,
    now: datetime,
) -> None:
    """The paid payment's order record and effects (goals, store stats, daily stats, the buyer's
    monthly spend, the buyer's player record and counters), each conditional on what `reads`
    saw: a writer that got there first makes the commit fail as contention. Sets the payment's
    invoice number (taken from `reads.ids`: the caller adds `ids.add_to(tx)` after this, and the
    payment itself last)."""
    payment.invoice = take_invoice_number(reads.ids, payment.created_at)
    payment.document_key = payment.document_key or payment.basket_ident or secrets.token_urlsafe(18)
    a = payment.account_id
    effects = PaymentEffectsRepository
    PaymentRepository.add_order(tx, payment)
    for goal_read in reads.goals:
        if goal_read.goal.status is GoalStatus.ACTIVE:
            progressed = planning.advance_goal(goal_read.goal, payment.amount, now)
            effects.add_goal_progress(tx, a, goal_read, progressed, now)
    spent = reads.spent_before + payment.amount
    stats = planning.stats_after(reads.stats, payment, buyer, spent, now)
    effects.add_stats(tx, a, stats, reads.stats_version)
    DailyStatsRepository.add_payment(tx, payment)
    effects.add_spend(tx, a, planning.month_of(now), buyer.id, reads.spent_before, spent)
    counters: dict[str, int | Decimal] = {"payments": 1, f"total_{payment.currency}": payment.amount}
    PlayerRepository.add_player(tx, a, buyer, email=email, now=now, counters=counters)
    EmailLookupRepository.add_pointer(tx, payment, email)


def add_payment_with_commands(
    tx: Transaction,
    queue: QueueRepository,
    payment: PaymentRecord,
    trigger: str,
    commands: list[QueuedCommand],
) -> None:
    """Add the new payment (with its command plan for `trigger`) and the plan's first chunk of
    commands to `tx`, keeping one action for the payment itself; 422 for a payment too large to
    record."""
    room = planning.MAX_TRANSACTION_ACTIONS - len(tx) - 1
    first = planning.plan_commands(payment, trigger, commands, room)
    planning.check_recordable(payment)
    PaymentRepository.add_payment(tx, payment)
    queue.add_enqueue(tx, payment.account_id, first)
