"""Stripe's webhook events for a store: verified, handled once, harmless when replayed or late.

- The signature is checked with the `stripe` library's own code against the store's sealed
  signing secret before anything is read or written; a bad one is refused (400).
- Each event id is handled once: a handled event is recorded (a conditional put with a TTL)
  after its effect, and a recorded one is acknowledged without effect. The effects themselves
  are idempotent by state (an order is fulfilled once per basket, a status change applies once),
  so a crash between the effect and the record only repeats a no-op.
- Out of order is harmless: a payment is settled from the PaymentIntent as Stripe has it now
  (a refunded or disputed one is never fulfilled), a refund or dispute of a payment not
  recorded is acknowledged and ignored, and a dispute already closed is not opened again.
- Unknown types are acknowledged (200) and ignored.
"""

from __future__ import annotations

import hmac
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webstore import keys
from webstore.catalog import Store
from webstore.checkout import checkout, stripe_checkout
from webstore.checkout.gateway_choice import stripe_of, webhook_secret
from webstore.checkout.stripe_gateway import StripeGateway, StripeIntent, _intent, from_minor_units, plain
from webstore.domain.gateways import STRIPE
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Conflict, DomainError, NotFound
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.payments.changes import change_payment, credit_chargeback
from webstore.payments.events import status_events
from webstore.payments.refunds import sync_stripe_refunds
from webstore.repo import start_read
from webstore.repo.baskets import BasketReads, BasketRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.processor_events import STRIPE as STRIPE_EVENTS_KEY
from webstore.repo.processor_events import ProcessorEventRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.basket_read import load
from webstore.subscriptions.completion import CompletedCharge, CompletionKind, complete_renewal

logger = logging.getLogger(__name__)

Handler = Callable[[Services, Store, StripeGateway, Any], str]

GATEWAY = STRIPE_EVENTS_KEY
DISPUTE_WON = frozenset({"won", "warning_closed"})  # an inquiry closed without a chargeback: kept


class BadSignature(DomainError):
    """The request is not signed by the store's Stripe webhook secret (400: nothing touched)."""

    status = 400
    title = "Bad signature"


@dataclass(frozen=True)
class Outcome:
    event_id: str
    type: str
    result: str  # handled | duplicate | ignored: what became of it, for logs and tests


def receive(services: Services, token: str, payload: bytes, signature: str | None) -> Outcome:
    """Verify, then handle a Stripe event for the store `token` names, once."""
    from stripe import SignatureVerificationError, Webhook

    store = _store(services, token)
    secret = webhook_secret(services, store)
    gateway = stripe_of(services, store)
    if secret is None or gateway is None:
        raise NotFound("This store does not take Stripe payments")
    try:
        event = Webhook.construct_event(payload, signature or "", secret)
    except (SignatureVerificationError, ValueError) as error:
        raise BadSignature("The Stripe-Signature header does not verify", field="Stripe-Signature") from error
    event_id, event_type = str(event["id"]), str(event["type"])
    obj = plain(event["data"]["object"])
    events = ProcessorEventRepository(services.table)
    seen = start_read(events.seen, store.id, GATEWAY, [event_id])
    handler = _with_first_read(services, store, event_type, obj) or _HANDLERS.get(event_type)
    if seen.result():
        return Outcome(event_id, event_type, "duplicate")
    result = handler(services, store, gateway, obj) if handler else "ignored"
    events.record(store.id, GATEWAY, event_id, services.now())
    events.note_received(store.id, GATEWAY, event_type, services.now())
    return Outcome(event_id, event_type, result)


def _store(services: Services, token: str) -> Store:
    store = StoreRepository(services.table).store(keys.account_of(token))
    if not hmac.compare_digest(store.public_token, token):
        raise NotFound("Store not found")
    return store


# --- payments ---------------------------------------------------------------------------


def _succeeded(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
    intent = _intent(obj)
    if intent.metadata.get("off_session_charge") and intent.metadata.get("account_id") == str(store.id):
        return _off_session_succeeded(services, store, gateway, intent)
    ident = _our_basket(store, intent)
    if ident is None:
        return "ignored"  # not a checkout of this store
    # Settled from the PaymentIntent as Stripe has it now (pay reads it again).
    stripe_checkout.settle_intent(services, ident, intent, gateway)
    return "handled"


def _with_first_read(services: Services, store: Store, event_type: str, obj: Any) -> Handler | None:
    """The handler of a checkout's `payment_intent.succeeded` with the pay sequence's first read
    made now, beside the duplicate check (one round trip; wasted only on a duplicate). None:
    no read to make early (the handler reads for itself)."""
    if event_type != "payment_intent.succeeded":
        return None
    intent = _intent(obj)
    ident = None if intent.metadata.get("off_session_charge") else _our_basket(store, intent)
    if ident is None:
        return None
    try:
        first = checkout.read_for_pay(services, ident, intent.id)
    except NotFound:  # settle_intent reads again, finds it gone and refunds
        return None

    def settle(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
        stripe_checkout.settle_intent(services, ident, intent, gateway, first=first)
        return "handled"

    return settle


def _off_session_succeeded(
    services: Services, store: Store, gateway: StripeGateway, intent: StripeIntent
) -> str:
    """An off-session charge succeeded (metadata `off_session_charge`: its idempotency key). A
    renewal the player completed after the bank asked them to authenticate is recorded here, once
    (a renewal the processor charged and recorded is found recorded by the same charge); one
    that cannot pay its cycle any more is refunded (`subscriptions.completion`). Other charges
    (tier upgrades) are settled by their callers from `charge_saved`'s answer."""
    current = gateway.intent(intent.id)  # as Stripe has it now: a refunded one is not recorded
    if current.status != "succeeded" or current.amount_refunded or current.disputed:
        return "ignored"
    charge = CompletedCharge(
        charge_key=current.metadata.get("off_session_charge", ""),
        reference=current.id,
        amount=from_minor_units(current.amount, current.currency),
        currency=current.currency,
    )
    completion = complete_renewal(services, store.id, charge, gateway, services.now())
    if completion.kind is CompletionKind.NOT_OURS:
        return "ignored"
    logger.info("stripe: off-session charge %s: %s %s", current.id, completion.kind.value, completion.detail)
    return "handled"


def _failed(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
    """A declined try in the page: `payment.declined` for the basket. Nothing is written: the
    player may still pay the same PaymentIntent with another card."""
    intent = _intent(obj)
    ident = _our_basket(store, intent)
    if ident is None:
        return "ignored"
    try:
        loaded = load(services, ident, None, BasketReads(order=checkout.order_key(ident)))
    except NotFound:
        return "ignored"
    if loaded.basket.complete or loaded.order is not None:
        return "ignored"  # paid meanwhile (a late failure of an earlier try)
    declined = checkout.declined_event(
        services, loaded.basket, intent.error or "The payment was declined", STRIPE.name
    )
    OutboxRepository(services.table).put(declined)  # its own write: nothing else changed
    return "handled"


# --- refunds and disputes ---------------------------------------------------------------


def _refunded(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
    """A refund made in the Stripe dashboard (or by our own refund call), full or partial: the
    PaymentIntent's refunds as Stripe lists them, each recorded once by its id
    (`payments.refunds.sync_stripe_refunds`: a partial one with its credit note; the one that
    completes the amount as the operator's refund is, with its commands and event)."""
    payment = _payment_of(services, store, gateway, obj.get("payment_intent"))
    if payment is None:
        return "ignored"
    try:
        recorded = sync_stripe_refunds(services, gateway, payment)
    except Conflict as refused:  # a chargeback is not refunded on top (Stripe refunds only a charge)
        logger.warning("stripe: refund not recorded: %s", refused.detail)
        return "ignored"
    return "handled" if recorded else "ignored"


def _dispute_opened(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
    """A chargeback: its commands, status chargeback, `payment.dispute.opened` (the change's)."""
    dispute_id = str(obj.get("id"))
    if ProcessorEventRepository(services.table).seen(store.id, GATEWAY, [_closed(dispute_id)]):
        return "ignored"  # closed already (events out of order): its outcome stands
    payment = _payment_of(services, store, gateway, obj.get("payment_intent"))
    if payment is None or payment.status is not PaymentStatus.COMPLETE:
        return "ignored"
    change_payment(
        services,
        store.id,
        payment.transaction_id,
        PaymentStatus.CHARGEBACK.value,
        None,
        final_chargeback=False,  # the dispute may still be won: its credit note waits for a loss
    )
    return "handled"


def _dispute_closed(services: Services, store: Store, gateway: StripeGateway, obj: Any) -> str:
    """Won: the payment is complete again (`payment.dispute.won`); lost: it stays a chargeback
    (`payment.dispute.lost`); then `payment.dispute.closed`. Recorded first, so a late
    `created` does not open it again."""
    dispute_id = str(obj.get("id"))
    ProcessorEventRepository(services.table).record(store.id, GATEWAY, _closed(dispute_id), services.now())
    payment = _payment_of(services, store, gateway, obj.get("payment_intent"))
    if payment is None:
        return "ignored"
    won = obj.get("status") in DISPUTE_WON
    events: list[DomainEvent] = []  # the outcome's events beyond the status change's own (written with it)
    if won and payment.status is PaymentStatus.CHARGEBACK:
        payment = change_payment(
            services, store.id, payment.transaction_id, PaymentStatus.COMPLETE.value, None
        )
    elif not won and payment.status is PaymentStatus.COMPLETE:  # its opening never arrived
        payment = change_payment(
            services, store.id, payment.transaction_id, PaymentStatus.CHARGEBACK.value, None
        )
        events += status_events(payment, EventType.PAYMENT_DISPUTE_LOST)
    elif not won:
        payment = credit_chargeback(services, payment)  # lost: the sale is reversed
        events += status_events(payment, EventType.PAYMENT_DISPUTE_LOST)
    elif payment.status is PaymentStatus.COMPLETE:
        events += status_events(payment, EventType.PAYMENT_DISPUTE_WON)
    events += status_events(payment, EventType.PAYMENT_DISPUTE_CLOSED)
    OutboxRepository(services.table).put_all(events)  # one write; ids derive from the payment
    return "handled"


def _closed(dispute_id: str) -> str:
    return f"dispute-closed#{dispute_id}"


def _our_basket(store: Store, intent: StripeIntent) -> str | None:
    ident = intent.metadata.get("basket_ident")
    if not ident or intent.metadata.get("account_id") != str(store.id):
        return None
    return ident


def _payment_of(
    services: Services, store: Store, gateway: StripeGateway, intent_id: Any
) -> PaymentRecord | None:
    """The payment a PaymentIntent paid (its basket's order, recorded under that intent)."""
    if not isinstance(intent_id, str) or not intent_id.startswith("pi_"):
        return None
    ident = _our_basket(store, gateway.intent(intent_id))
    if ident is None:
        return None
    order = (
        BasketRepository(services.table).read(store.id, BasketReads(order=checkout.order_key(ident))).order
    )
    if order is None or order.checkout_attempt != intent_id:
        return None  # never fulfilled (refused, or paid by another attempt and refunded)
    return PaymentRepository(services.table).get(store.id, order.payment_id, consistent=True)


_HANDLERS: dict[str, Handler] = {
    "payment_intent.succeeded": _succeeded,
    "payment_intent.payment_failed": _failed,
    "charge.refunded": _refunded,
    "charge.dispute.created": _dispute_opened,
    "charge.dispute.closed": _dispute_closed,
}
