"""Partial refunds made in Stripe (the dashboard) and from the panel, recorded once each by
Stripe's refund id: credit notes, the payment still complete until the amount is all given
back, then the full refund with its commands and `payment.refunded`; the tax reversal hook is
called for each."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from functions.admin import refund_payment
from tests.integration.stripe.test_stripe_webhook import (
    deliver,
    event,
    paid_basket,
    payment_status,
    published_types,
    stripe_store,
)
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import stripe_client
from tests.support.panel import signed_in
from webstore import keys
from webstore.admin.roles import Role
from webstore.domain.invoices import Refund
from webstore.event_types import EventType
from webstore.payments import refunds
from webstore.repo.payments import PaymentRecord, PaymentRepository

__all__ = ["stripe_store"]  # the fixture, shared with the webhook tests


@pytest.fixture
def reversals(monkeypatch: pytest.MonkeyPatch) -> list[Decimal]:
    calls: list[Decimal] = []

    def record(services: Any, payment: PaymentRecord, refund: Refund) -> None:
        calls.append(refund.amount)

    monkeypatch.setattr(refunds, "reverse_tax", record)
    return calls


def stored(demo: DemoStore, txn: str) -> PaymentRecord:
    found = PaymentRepository(demo.table).get(1, keys.payment_id_of(txn), consistent=True)
    assert found is not None
    return found


def charge_refunded(stripe_api: str, intent: str) -> str:
    charge = stripe_client(stripe_api).v1.payment_intents.retrieve(intent).to_dict()["latest_charge"]
    return event("charge.refunded", {"id": charge, "object": "charge", "payment_intent": intent})


def test_dashboard_partial_refunds_then_the_rest(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str, reversals: list[Decimal]
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    txn = payment["txn_id"]
    total = stored(stripe_store, txn).amount
    client = stripe_client(stripe_api)
    client.v1.refunds.create(params={"payment_intent": intent, "amount": 100})  # 1.00 in the dashboard
    refunded = charge_refunded(stripe_api, intent)
    assert deliver(invoke, stripe_store, refunded).json()["result"] == "handled"
    assert deliver(invoke, stripe_store, charge_refunded(stripe_api, intent)).json()["result"] == "ignored"
    after = stored(stripe_store, txn)
    assert payment_status(invoke, stripe_store, txn) == "Complete" and after.partially_refunded
    [first] = after.refunds
    assert (first.amount, first.credit_note.credit_label, first.reference[:3]) == (
        Decimal("1.00"),
        f"CN-{first.at.year}-00001",
        "re_",
    )
    assert EventType.PAYMENT_REFUNDED not in published_types()

    client.v1.refunds.create(params={"payment_intent": intent})  # the rest
    assert deliver(invoke, stripe_store, charge_refunded(stripe_api, intent)).json()["result"] == "handled"
    after = stored(stripe_store, txn)
    assert payment_status(invoke, stripe_store, txn) == "Refund"
    assert [r.amount for r in after.refunds] == [Decimal("1.00"), total - Decimal("1.00")]
    assert [r.credit_note.number for r in after.refunds] == [1, 2]
    assert published_types().count(EventType.PAYMENT_REFUNDED) == 1
    assert reversals == [Decimal("1.00"), total - Decimal("1.00")]


def test_a_panel_partial_refund_goes_through_stripe_and_is_recorded_once(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str, reversals: list[Decimal]
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    txn = payment["txn_id"]
    owner = signed_in(Role.OWNER)
    answer = owner.post(
        refund_payment.handler, f"/payments/{txn}/refund", {"confirm": "yes", "amount": "0.50"}
    )
    assert answer.status == 303, answer.body
    listed = stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent}).data
    assert [r.amount for r in listed] == [50]
    # Stripe reports the panel's own refund back: recorded already, by its id.
    assert deliver(invoke, stripe_store, charge_refunded(stripe_api, intent)).json()["result"] == "ignored"
    after = stored(stripe_store, txn)
    assert [(r.amount, r.reference) for r in after.refunds] == [(Decimal("0.50"), listed[0].id)]
    assert reversals == [Decimal("0.50")]
