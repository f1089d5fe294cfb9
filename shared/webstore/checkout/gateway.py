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

from webstore.domain.gateways import SANDBOX


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
    save_method: bool = False  # keep the method for off-session charges (subscriptions)


@dataclass(frozen=True)
class OffSessionCharge:
    """A charge of a saved method without the player (a renewal, a tier upgrade)."""

    idempotency_key: str  # one per subscription and cycle (or upgrade): never charges twice
    saved_method: str  # what `ChargeResult.saved_method` answered when it was saved
    amount: Decimal
    currency: str
    description: str


@dataclass(frozen=True)
class ChargeResult:
    status: ChargeStatus
    reference: str = ""  # the processor's payment reference
    reason: str = ""  # why it was declined, for the player
    redirect_url: str = ""  # REDIRECT: where the player pays; DECLINED off-session: where they can
    # complete an authentication the processor asked for (counts as declined until they do)
    saved_method: str = ""  # PAID with `save_method`: the gateway's reference to reuse it
    card_country: str = ""  # PAID: the card's issuing country, when the processor tells (tax evidence)


class PaymentGateway(Protocol):
    name: str
    gateway_id: int

    def charge(self, request: ChargeRequest) -> ChargeResult: ...

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        """Charge a saved method off-session: PAID or DECLINED (never REDIRECT)."""
        ...

    def refund(self, reference: str, amount: Decimal) -> bool: ...

    def find_charge(self, request: ChargeRequest) -> ChargeResult:
        """What the charge under `request.attempt_key` took, without taking anything new (the
        reconciler of an attempt that stopped): PAID as `charge` answered it when it took
        exactly `request`'s amount; DECLINED when nothing was taken, or what was taken differs
        (then it is given back); REDIRECT while the processor is still deciding."""
        ...

    def refund_attempt(self, attempt_key: str) -> bool:
        """Give back whatever the charge made under `attempt_key` took, if there was one.
        Idempotent: a second call, or a key that never charged, changes nothing and answers
        True; False only when the processor could not refund (the store must)."""
        ...


SANDBOX_DECLINED_CARD = "4000000000000002"
# Pays now, but once saved every off-session charge declines (as Stripe's test card of the
# same number), so a declined renewal can be tried end to end.
SANDBOX_RENEWAL_DECLINED_CARD = "4000000000000341"
# Pays now, but once saved every off-session charge needs the cardholder's authentication (as
# Stripe's 4000 0027 6000 3184): declined with a link to the sandbox's own authentication page.
SANDBOX_AUTHENTICATION_CARD = "4000002760003184"
# The sandbox's saved methods: one that pays off-session, one that declines, one that asks for
# authentication.
SANDBOX_SAVED_CARD = "sandbox-card"
SANDBOX_SAVED_DECLINING_CARD = "sandbox-card-declines"
SANDBOX_SAVED_AUTHENTICATING_CARD = "sandbox-card-authenticates"
_SAVED = {
    SANDBOX_RENEWAL_DECLINED_CARD: SANDBOX_SAVED_DECLINING_CARD,
    SANDBOX_AUTHENTICATION_CARD: SANDBOX_SAVED_AUTHENTICATING_CARD,
}
AUTHENTICATION_REASON = "The bank asks the cardholder to authenticate this payment"


class SandboxGateway:
    """Pays at once; the test card 4000 0000 0000 0002 declines, 4000 0000 0000 0341 pays but
    declines every later off-session charge, 4000 0027 6000 3184 pays but every later
    off-session charge needs authentication on the sandbox's page (`authentication_page`: its
    URL up to the charge key; without one such a charge is a plain decline). Deterministic per
    attempt."""

    name = SANDBOX.name
    gateway_id = SANDBOX.id

    def __init__(self, authentication_page: str = "") -> None:
        self.authentication_page = authentication_page

    def charge(self, request: ChargeRequest) -> ChargeResult:
        digits = "".join(ch for ch in request.card_number if ch.isdigit())
        if digits == SANDBOX_DECLINED_CARD:
            return ChargeResult(ChargeStatus.DECLINED, reason="The card was declined (sandbox test card)")
        if request.amount < 0:
            return ChargeResult(ChargeStatus.DECLINED, reason="Nothing to charge")
        saved = _SAVED.get(digits, SANDBOX_SAVED_CARD) if request.save_method else ""
        return ChargeResult(ChargeStatus.PAID, reference=f"sandbox-{request.attempt_key}", saved_method=saved)

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        """The saved sandbox card pays; the authenticating one declines with the link to the
        sandbox's authentication page; the declining one (or an unknown reference) declines."""
        if request.saved_method == SANDBOX_SAVED_AUTHENTICATING_CARD:
            url = f"{self.authentication_page}/{request.idempotency_key}" if self.authentication_page else ""
            return ChargeResult(
                ChargeStatus.DECLINED,
                reference=self.reference(request.idempotency_key),
                reason=f"{AUTHENTICATION_REASON} (sandbox)",
                redirect_url=url,
            )
        if request.saved_method != SANDBOX_SAVED_CARD:
            return ChargeResult(ChargeStatus.DECLINED, reason="The saved card was declined (sandbox)")
        return ChargeResult(ChargeStatus.PAID, reference=self.reference(request.idempotency_key))

    @staticmethod
    def reference(charge_key: str) -> str:
        return f"sandbox-{charge_key}"

    def authenticate(self, charge_key: str) -> ChargeResult:
        """The cardholder authenticated the off-session charge of `charge_key` on the sandbox's
        page: it is paid now (what Stripe reports with `payment_intent.succeeded`)."""
        return ChargeResult(ChargeStatus.PAID, reference=self.reference(charge_key))

    def find_charge(self, request: ChargeRequest) -> ChargeResult:
        """The sandbox keeps no books (its charges move no money): nothing to find."""
        return ChargeResult(ChargeStatus.DECLINED, reason="The sandbox keeps no record of its charges")

    def refund(self, reference: str, amount: Decimal) -> bool:
        """Sandbox charges move no money, so giving it back always succeeds."""
        return reference.startswith("sandbox-")

    def refund_attempt(self, attempt_key: str) -> bool:
        """Nothing moved, so there is always nothing left to give back."""
        return True
