"""The payment gateway port, and the sandbox gateway that runs the whole flow locally.

A real processor (card redirect + its webhook) is one more adapter: `charge` answers
`redirect` with the processor's URL (the attempt keeps the basket's claim), and the adapter's
webhook handler calls `checkout.settle` with the basket, the attempt key and the paid
`ChargeResult` — the same step the sandbox's immediate answer takes. The sandbox answers at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Protocol

from webstore.payments.gateways import SANDBOX


class ChargeStatus(StrEnum):
    PAID = "paid"
    DECLINED = "declined"
    REDIRECT = "redirect"  # the player finishes at the processor; its webhook reports back


@dataclass(frozen=True)
class ChargeRequest:
    attempt_key: str  # idempotency key: the same key never charges twice
    amount: Decimal
    currency: str
    description: str
    card_number: str = ""
    email: str | None = None


@dataclass(frozen=True)
class ChargeResult:
    status: ChargeStatus
    reference: str = ""  # the processor's payment reference
    reason: str = ""  # why it was declined, for the player
    redirect_url: str = ""


class PaymentGateway(Protocol):
    name: str
    gateway_id: int

    def charge(self, request: ChargeRequest) -> ChargeResult: ...

    def refund(self, reference: str, amount: Decimal) -> bool: ...

    def refund_attempt(self, attempt_key: str) -> bool:
        """Give back whatever the charge made under `attempt_key` took, if there was one.
        Idempotent: a second call, or a key that never charged, changes nothing and answers
        True; False only when the processor could not refund (the store must)."""
        ...


SANDBOX_DECLINED_CARD = "4000000000000002"


class SandboxGateway:
    """Pays at once; the test card 4000 0000 0000 0002 declines. Deterministic per attempt."""

    name = SANDBOX.name
    gateway_id = SANDBOX.id

    def charge(self, request: ChargeRequest) -> ChargeResult:
        digits = "".join(ch for ch in request.card_number if ch.isdigit())
        if digits == SANDBOX_DECLINED_CARD:
            return ChargeResult(ChargeStatus.DECLINED, reason="The card was declined (sandbox test card)")
        if request.amount < 0:
            return ChargeResult(ChargeStatus.DECLINED, reason="Nothing to charge")
        return ChargeResult(ChargeStatus.PAID, reference=f"sandbox-{request.attempt_key}")

    def refund(self, reference: str, amount: Decimal) -> bool:
        """Sandbox charges move no money, so giving it back always succeeds."""
        return reference.startswith("sandbox-")

    def refund_attempt(self, attempt_key: str) -> bool:
        """Nothing moved, so there is always nothing left to give back."""
        return True
