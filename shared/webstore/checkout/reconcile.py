"""Money in limbo: a checkout attempt that claimed its basket and then stopped (the process died
after the charge, the player never came back) is finished by the processor (docs/checkout.md).

The claim put a schedule item due `RECONCILE_AFTER` later (`repo.checkout_attempts`); completion
and release remove it in their own transactions, so an item still there when due names an attempt
that may hold money. `reconcile` runs the pay sequence for it as a resubmit of the same form
would, with one difference: the gateway only *finds* what the attempt's charge took
(`PaymentGateway.find_charge`), it never charges. So:

- its order recorded (by it) → finish it (complete the basket, pending commands, the event);
  recorded by another attempt → its charge goes back;
- its claim taken over → its charge goes back, the attempt is closed;
- the charge found, the basket still sold for that amount → the payment is recorded
  (fulfilment's claim check and idempotency as for the player); refused by fulfilment, or the
  amount differs → refunded, the basket freed;
- nothing taken (or the processor keeps no record, as the sandbox) → the attempt is closed and
  the basket freed, its expiry restored.

Idempotent: every step is the pay sequence's own (the refund is by attempt key; fulfilment is
once per basket), so a run that dies part-way is finished by the next.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum

from webstore.checkout import checkout
from webstore.checkout.gateway import (
    ChargeRequest,
    ChargeResult,
    ChargeStatus,
    OffSessionCharge,
    PaymentGateway,
)
from webstore.errors import NotFound
from webstore.repo.baskets import AttemptStatus, BasketReads, BasketRepository
from webstore.repo.checkout_attempts import CheckoutAttemptRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services


class Reconciled(StrEnum):
    RECORDED = "recorded"  # the attempt's charge pays the basket's recorded payment
    REFUNDED = "refunded"  # the attempt is closed; whatever it charged was given back
    FINISHED = "finished"  # nothing to do: the attempt had ended (paid or closed) or is gone
    PROCESSING = "processing"  # the processor has not decided the charge yet: later


@dataclass(frozen=True)
class Reconciliation:
    outcome: Reconciled
    detail: str = ""


class _FindOnly:
    """The store's gateway, except that `charge` only finds what the attempt's charge took."""

    def __init__(self, gateway: PaymentGateway) -> None:
        self.gateway = gateway
        self.name = gateway.name
        self.gateway_id = gateway.gateway_id
        self.found: ChargeResult | None = None

    def charge(self, request: ChargeRequest) -> ChargeResult:
        self.found = self.gateway.find_charge(request)
        return self.found

    def find_charge(self, request: ChargeRequest) -> ChargeResult:
        return self.gateway.find_charge(request)

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        raise AssertionError("the reconciler never charges")

    def refund(self, reference: str, amount: Decimal) -> bool:
        return self.gateway.refund(reference, amount)

    def refund_attempt(self, attempt_key: str) -> bool:
        return self.gateway.refund_attempt(attempt_key)


def reconcile(services: Services, account_id: int, ident: str, key: str) -> Reconciliation:
    """Finish attempt `key` of basket `ident`: its charge recorded, or given back."""
    try:
        first = checkout.read_for_pay(services, ident, key)
    except NotFound:  # the basket is gone (it expired): nothing can be recorded for it
        store = StoreRepository(services.table).store(account_id)
        refunded = checkout.gateway_for(services, store).refund_attempt(key)
        return Reconciliation(Reconciled.REFUNDED, f"the basket is gone; refunded={refunded}")
    attempt = first.loaded.attempt
    if attempt is None:
        return Reconciliation(Reconciled.FINISHED, "no such attempt")
    if attempt.status is not AttemptStatus.PENDING:
        return Reconciliation(Reconciled.FINISHED, f"the attempt was already {attempt.status.value}")
    gateway = _FindOnly(checkout.gateway_for(services, first.loaded.store))
    checkout.pay(services, ident, key, "", first=first, gateway=gateway, announce_decline=False)
    after = BasketRepository(services.table).read(
        account_id, BasketReads(basket=ident, checkout_attempt=key, order=checkout.order_key(ident))
    )
    if after.order is not None and after.order.checkout_attempt == key:
        transaction = after.basket.transaction_id if after.basket else None
        return Reconciliation(Reconciled.RECORDED, f"payment {transaction}")
    if after.attempt is not None and after.attempt.status is AttemptStatus.PENDING:
        if gateway.found is not None and gateway.found.status is ChargeStatus.REDIRECT:
            return Reconciliation(Reconciled.PROCESSING, "the processor has not decided the charge yet")
        # The pay sequence stopped before the charge step (the store stopped selling, say):
        # the attempt cannot pay, so whatever it took goes back and the basket is freed.
        refunded = gateway.refund_attempt(key)
        reason = "stopped before paying; reconciled"
        if after.basket is not None:
            CheckoutAttemptRepository(services.table).release(after.basket, key, services.now(), reason)
        return Reconciliation(Reconciled.REFUNDED, f"{reason}; refunded={refunded}")
    reason = after.attempt.reason if after.attempt is not None else ""
    return Reconciliation(Reconciled.REFUNDED, reason)
