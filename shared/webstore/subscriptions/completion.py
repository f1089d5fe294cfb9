"""A declined renewal the player completed: the off-session charge the bank wanted them to
authenticate has now succeeded, so its cycle is recorded, exactly once, or the money goes back.

Both ways a completion arrives end here: Stripe's `payment_intent.succeeded` of an off-session
PaymentIntent (metadata `off_session_charge`: the attempt's idempotency key) and the sandbox's
authentication page. The cycle is recorded by the processor's own path (`record_renewal`, the
cycle's order key `renewal-{reference}-{cycle}`), holding the subscription's schedule item as a
processor run would (a claim), so a retry of the same cycle and a completion never record it
twice: whichever comes second finds the cycle paid (the retry's item is gone; a charge of the
retry that succeeded meanwhile finds the order paid by another charge and is refunded, as a
second completion is). A completion that comes after the subscription ended (or was cancelled,
or the amount changed) is refunded.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal
from enum import StrEnum

from webstore import contention
from webstore.checkout.gateway import PaymentGateway
from webstore.errors import Conflict
from webstore.recurring import RecurringPayment
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.schedule import ScheduleRepository, key_of_sk
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.subscriptions import planning
from webstore.subscriptions.processor import CLAIM_SECONDS
from webstore.subscriptions.renewal_charge import first_payment
from webstore.subscriptions.renewal_tax import price_renewal
from webstore.subscriptions.renewals import Renewal, cycle_paid_by, record_renewal

logger = logging.getLogger(__name__)

MAX_ATTEMPTS = 3


class RenewalBusy(Conflict):
    """A processor run holds the subscription right now (409): the caller tries again later
    (Stripe retries a webhook it was not acknowledged for)."""

    def __init__(self) -> None:
        super().__init__("The renewal is being processed right now; try again in a moment")


@dataclass(frozen=True)
class CompletedCharge:
    """An off-session charge that has succeeded after the player completed it."""

    charge_key: str  # the attempt's idempotency key
    reference: str  # the processor's reference (a PaymentIntent id)
    amount: Decimal
    currency: str


class CompletionKind(StrEnum):
    RECORDED = "recorded"  # the cycle's renewal was recorded by this charge
    ALREADY_RECORDED = "already recorded"  # by this same charge earlier (a replay)
    REFUNDED = "refunded"  # the cycle was paid otherwise, or the subscription cannot renew
    NOT_OURS = "not ours"  # not a renewal charge of a subscription of this store


@dataclass(frozen=True)
class Completion:
    kind: CompletionKind
    detail: str = ""
    transaction_id: str | None = None
    refunded: bool = False  # REFUNDED: whether the processor accepted the refund


def complete_renewal(
    services: Services, account_id: int, charge: CompletedCharge, gateway: PaymentGateway, now: datetime
) -> Completion:
    """Record the cycle `charge` paid, once; refund it when the cycle cannot take it."""
    cycle_of = planning.charged_cycle(charge.charge_key)
    if cycle_of is None:
        return Completion(CompletionKind.NOT_OURS, "not a renewal charge")
    reference, cycle = cycle_of
    order_key = planning.renewal_order_key(reference, cycle)
    recurring = RecurringPaymentRepository(services.table)
    for _ in contention.attempts(MAX_ATTEMPTS):
        rp = recurring.get(account_id, reference)
        if rp is None:
            return Completion(CompletionKind.NOT_OURS, "no such subscription")
        paid_by = cycle_paid_by(services, account_id, order_key)
        if paid_by == charge.reference:
            return Completion(CompletionKind.ALREADY_RECORDED, "recorded by this charge")
        if paid_by is not None:
            return _refund(charge, gateway, "another charge paid this renewal")
        refusal = _refusal(services, rp, cycle, charge)
        if refusal:
            return _refund(charge, gateway, refusal)
        try:
            recorded = _record(services, rp, charge, order_key, now)
        except _Refuse as refused:
            return _refund(charge, gateway, str(refused))
        if recorded is not None:
            return Completion(CompletionKind.RECORDED, transaction_id=recorded)
        # The subscription changed between the read and the record: read it again.
    raise Conflict("The subscription keeps changing; the renewal was not recorded (try again)")


def _refusal(services: Services, rp: RecurringPayment, cycle: int, charge: CompletedCharge) -> str:
    """Why this charge cannot pay the subscription's next cycle ("" when it can)."""
    if not rp.ongoing:
        return "the subscription has ended"
    if rp.payment_sequence + 1 != cycle:
        return "the charge is for another renewal"
    if rp.cancel_requested_at is not None:
        return "the subscription is cancelled"
    if charge.currency.upper() != rp.currency.upper():
        return "the charge is in another currency"
    return ""


class _Refuse(Exception):
    """The charge cannot pay this cycle (read under the claim): refund it."""


def _record(
    services: Services, rp: RecurringPayment, charge: CompletedCharge, order_key: str, now: datetime
) -> str | None:
    """Record the cycle under the subscription's schedule item, claimed as a processor run
    claims it; the transaction id, or None when the subscription changed meanwhile."""
    assert rp.schedule_sk is not None  # an ongoing subscription has its item
    schedule = ScheduleRepository(services.table)
    item = key_of_sk(rp.account_id, rp.reference, rp.schedule_sk)
    claim = uuid.uuid4().hex
    real_now = services.now()
    if schedule.claim(item, claim, real_now + timedelta(seconds=CLAIM_SECONDS), real_now) is None:
        if schedule.get(item) is None:
            return None  # moved on meanwhile (renewed, declined again, ended): read again
        raise RenewalBusy()
    try:
        tiers = PlayerTierRepository(services.table).get_many(rp.account_id, rp.tier_ids)
        view = StoreRepository(services.table).operator_view(rp.account_id)
        if planning.due_action(rp, rp.schedule_sk, tiers) is not planning.DueAction.CHARGE:
            raise _Refuse("the subscription cannot renew any more")
        lines = planning.current_lines(rp, tiers, view)
        price = price_renewal(services, view.store, rp, lines, first_payment(services, rp))
        if price.amount != charge.amount:
            raise _Refuse("the charge is not the renewal's amount")
        renewal = Renewal(rp, lines, tiers, item, claim, order_key, charge.reference, price)
        payment = record_renewal(services, renewal, view, now)
    except BaseException:
        schedule.release(item, claim)
        raise
    if payment is None:
        schedule.release(item, claim)
        return None
    return payment.transaction_id


def _refund(charge: CompletedCharge, gateway: PaymentGateway, why: str) -> Completion:
    refunded = gateway.refund(charge.reference, charge.amount)
    if not refunded:
        logger.warning("subscriptions: a completed renewal charge could not be refunded (%s)", why)
    return Completion(CompletionKind.REFUNDED, why, refunded=refunded)
