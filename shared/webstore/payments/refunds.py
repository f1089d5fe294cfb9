"""Refunds recorded, full and partial, each with its credit note (docs/tax.md, "Refunds").

- A **full refund** is the status change to `refund` (`payments.changes.change_payment`): its
  commands, `payment.refunded`, and one refund of what was still refundable, with its credit
  note, in the change's transaction.
- A **partial refund** gives back part of a payment that stays `complete` (the player keeps
  what they bought; no refund commands, no `payment.refunded`: receivers would take the
  purchase back). It is recorded on the payment (`refunds`, with its credit note numbered in
  the same transaction), counted in the day's `refunded_{CUR}`, and audited when the panel made
  it. A partial refund that reaches what is left to refund is the full refund instead.
- **From Stripe** (`charge.refunded`): the PaymentIntent's refunds as Stripe lists them, each
  recorded once by its refund id (`Refund.reference`), whoever made it (the dashboard, the
  panel's own call): the one that completes the amount is the full refund.
- After each recorded refund, `reverse_tax`: the payment's Stripe Tax transaction reversed for
  that refund (webstore.checkout.tax_details.reverse_stripe_tax), when it has one.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from decimal import Decimal, InvalidOperation
from typing import TYPE_CHECKING

from webstore.domain.gateways import STRIPE
from webstore.domain.invoices import Refund
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, Invalid
from webstore.money import round_money
from webstore.payments.changes import change_payment, credit_note_for
from webstore.payments.gateway_refunds import RefundRefused
from webstore.repo import Transaction
from webstore.repo.audit_log import Audit
from webstore.repo.daily_stats import DailyStatsRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.services import Services

if TYPE_CHECKING:
    from webstore.checkout.stripe_gateway import StripeGateway

logger = logging.getLogger(__name__)

PANEL_REFERENCE = "panel:"


def reverse_tax(services: Services, payment: PaymentRecord, refund: Refund) -> str | None:
    """The tax reversal of a recorded refund (full or partial): a payment taxed through Stripe
    Tax (`payment.tax.stripe_transaction_id`) has its Stripe Tax transaction reversed, all that
    is left for the full refund, `refund.amount` (tax included) for a partial one, under the
    credit note's number (a retry answers the same reversal). The reversal's id, or None when
    there is nothing to reverse at Stripe (the credit note and the tax report are the store's
    own reversal) or Stripe could not be reached: the refund stands and the failure is logged
    for the owner to reverse in the Stripe dashboard."""
    recorded = payment.tax
    if recorded is None or not recorded.stripe_transaction_id:
        return None
    from webstore.checkout.tax_details import reverse_stripe_tax  # the pricing side's adapter
    from webstore.repo.store import StoreRepository

    store = StoreRepository(services.table).store(payment.account_id)
    try:
        return reverse_stripe_tax(
            services,
            store,
            recorded.stripe_transaction_id,
            f"{payment.transaction_id}-{refund.credit_note.credit_label}",
            amount=None if refund.full else refund.amount,
        )
    except Exception as error:  # the money is given back already: never lose the refund's record
        logger.warning(
            "stripe tax: no reversal for %s (%s): %s",
            payment.transaction_id,
            refund.credit_note.credit_label,
            getattr(error, "code", error),
        )
        return None


def parse_amount(value: str, payment: PaymentRecord) -> Decimal | None:
    """The refund amount typed in the panel: blank → None (all that is left); else a positive
    amount in the payment's currency, at most what is left to refund (422 naming `amount`)."""
    text = (value or "").strip()
    if not text:
        return None
    try:
        amount = Decimal(text)
    except InvalidOperation as error:
        raise Invalid("amount is a number such as 2.50", field="amount") from error
    if not amount.is_finite() or amount <= 0:
        raise Invalid("amount must be more than 0", field="amount")
    if round_money(amount, payment.currency) != amount:
        raise Invalid(f"amount has more decimals than {payment.currency} allows", field="amount")
    if amount > payment.refundable_amount:
        raise Invalid(
            f"amount is at most {payment.refundable_amount} {payment.currency} (what is left to refund)",
            field="amount",
        )
    return amount


def refund_payment(
    services: Services,
    account_id: int,
    transaction_id: str,
    amount: str,
    *,
    audit: Callable[[PaymentRecord, PaymentRecord], Audit] | None = None,
    withdraw: bool = True,
) -> PaymentRecord:
    """The panel's refund: `amount` blank or all that is left → the full refund (status refund;
    `withdraw`: its never-fetched purchase commands taken out, payments.changes); less → a
    partial refund, through Stripe first when Stripe took the money."""
    payment = PaymentRepository(services.table).by_transaction(account_id, transaction_id)
    if payment.status is PaymentStatus.REFUND and not amount.strip():
        return payment  # the same full refund posted twice: already done, nothing more
    if payment.status is not PaymentStatus.COMPLETE:
        raise Conflict(f"A {payment.status} payment cannot be refunded", field="status")
    wanted = parse_amount(amount, payment)
    if wanted is None or wanted == payment.refundable_amount:
        return change_payment(
            services,
            account_id,
            transaction_id,
            PaymentStatus.REFUND.value,
            None,
            withdraw=withdraw,
            audit=audit,
        )
    reference = f"{PANEL_REFERENCE}{len(payment.refunds) + 1}"
    gateway = _stripe_of(services, payment)
    if gateway is not None:
        assert payment.checkout_attempt is not None
        refund_id = gateway.refund_part(
            payment.checkout_attempt,
            wanted,
            payment.currency,
            key=f"refund-{payment.checkout_attempt}-{len(payment.refunds) + 1}-{wanted}",
        )
        if refund_id is None:
            raise RefundRefused("Stripe did not accept the refund; nothing was changed", field="amount")
        reference = refund_id
    return record_partial(services, payment, wanted, reference, audit=audit)


def record_partial(
    services: Services,
    payment: PaymentRecord,
    amount: Decimal,
    reference: str,
    *,
    audit: Callable[[PaymentRecord, PaymentRecord], Audit] | None = None,
) -> PaymentRecord:
    """Record a partial refund of `amount` given back under `reference` (once per reference):
    the refund with its credit note, the day's figures and the audit entry in one transaction;
    then the tax reversal. The payment as it is now."""
    now = services.now()
    repo = PaymentRepository(services.table)
    current = payment
    sequences = SequenceRepository(services.table)

    def build(ids: IdAllocation) -> tuple[Transaction, PaymentRecord]:
        refund = credit_note_for(ids, current, amount, reference, now)
        refund.full = False
        updated = current.model_copy(deep=True)
        updated.refunds.append(refund)
        updated.updated_at = now
        tx = Transaction(services.table)
        PaymentRepository.add_refund(
            tx, current, refund, Conflict("The payment changed meanwhile; read it again and retry")
        )
        DailyStatsRepository.add_partial_refund(tx, current, refund)
        if audit is not None:
            audit(current, updated).add_to(tx, current.account_id)
        return tx, updated

    for _ in range(3):  # a concurrent refund of the same payment: read it again, once or twice
        if any(r.reference == reference for r in current.refunds):
            return current  # recorded already (the panel's own call reported back by Stripe)
        if current.status is not PaymentStatus.COMPLETE or amount > current.refundable_amount:
            raise Conflict("The payment changed meanwhile; read it again and retry", field="amount")
        try:
            updated = sequences.write(current.account_id, build)
        except Conflict:
            fresh = repo.get(current.account_id, current.id, consistent=True)
            if fresh is None:
                raise
            current = fresh
            continue
        reverse_tax(services, updated, updated.refunds[-1])
        return updated
    raise Conflict("The payment changed meanwhile; read it again and retry", field="amount")


def sync_stripe_refunds(services: Services, gateway: StripeGateway, payment: PaymentRecord) -> bool:
    """Record the refunds Stripe holds for the payment's PaymentIntent that the payment does not
    (by refund id): partial ones as partial refunds, the one that completes the amount as the full
    refund. Whether anything was recorded."""
    if payment.status is not PaymentStatus.COMPLETE or not payment.checkout_attempt:
        return False
    recorded = {r.reference for r in payment.refunds}
    given = sum((r.amount for r in payment.refunds), start=Decimal(0))
    changed = False
    for refund_id, amount in gateway.refunds_of(payment.checkout_attempt):
        if refund_id in recorded:
            continue
        if given + amount >= payment.amount:
            change_payment(
                services,
                payment.account_id,
                payment.transaction_id,
                PaymentStatus.REFUND.value,
                None,
                refunded_at_processor=True,
                refund_reference=refund_id,
            )
            return True
        payment = record_partial(services, payment, amount, refund_id)
        given += amount
        changed = True
    return changed


def _stripe_of(services: Services, payment: PaymentRecord) -> StripeGateway | None:
    """The store's Stripe gateway for a payment Stripe took (None: no processor to go through)."""
    if payment.gateway != STRIPE.name or not payment.checkout_attempt:
        return None
    from webstore.checkout.gateway_choice import stripe_of
    from webstore.repo.store import StoreRepository

    gateway = stripe_of(services, StoreRepository(services.table).store(payment.account_id))
    if gateway is None:
        raise RefundRefused(
            "The store has no Stripe keys any more: refund the payment in the Stripe dashboard",
            field="amount",
        )
    return gateway
