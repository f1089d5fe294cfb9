"""The payment gateway port, and the sandbox gateway that runs the whole flow locally.

A real processor (card redirect + its webhook) is one more adapter: `charge` answers
`redirect` with the processor's URL, and the processor's webhook later calls
`checkout.complete_attempt` with the same attempt key. The sandbox answers at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from enum import StrEnum
from typing import Protocol


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


SANDBOX_DECLINED_CARD = "4000000000000002"


class SandboxGateway:
    """Pays at once; the test card 4000 0000 0000 0002 declines. Deterministic per attempt."""

    name = "Sandbox"
    gateway_id = 1

    def charge(self, request: ChargeRequest) -> ChargeResult:
        digits = "".join(ch for ch in request.card_number if ch.isdigit())
        if digits == SANDBOX_DECLINED_CARD:
            return ChargeResult(ChargeStatus.DECLINED, reason="The card was declined (sandbox test card)")
        if request.amount < 0:
            return ChargeResult(ChargeStatus.DECLINED, reason="Nothing to charge")
        return ChargeResult(ChargeStatus.PAID, reference=f"sandbox-{request.attempt_key}")
