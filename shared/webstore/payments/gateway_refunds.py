"""An operator's refund of a payment a real processor took: the money goes back through the
processor first, and the refund is recorded only when the processor accepted it. Payments that
moved no money through a processor (manual, sandbox) have nothing to give back there."""

from __future__ import annotations

from webstore.domain.gateways import STRIPE
from webstore.errors import Conflict
from webstore.repo.payments import PaymentRecord
from webstore.repo.store import StoreRepository
from webstore.services import Services


class RefundRefused(Conflict):
    """The processor did not refund: nothing is recorded (409, naming `status`)."""


def refund_at_processor(services: Services, payment: PaymentRecord) -> None:
    """Refund a Stripe payment through the store's Stripe account (idempotent: Stripe's
    idempotency key is the PaymentIntent's, and a refunded charge counts as refunded). Raises
    RefundRefused when Stripe would not; returns when there is nothing to refund there."""
    if payment.gateway != STRIPE.name or not payment.checkout_attempt:
        return
    from webstore.checkout.gateway_choice import stripe_of  # the adapter, for Stripe payments only

    store = StoreRepository(services.table).store(payment.account_id)
    gateway = stripe_of(services, store)
    if gateway is None:
        raise RefundRefused(
            "The store has no Stripe keys any more: refund the payment in the Stripe dashboard",
            field="status",
        )
    if not gateway.refund(payment.checkout_attempt, payment.amount):
        raise RefundRefused("Stripe did not accept the refund; nothing was changed", field="status")
