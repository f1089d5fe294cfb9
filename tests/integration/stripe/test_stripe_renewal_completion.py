"""A Stripe renewal that needed the player's authentication: the link (our page, Stripe.js and the
intent's client secret), then completed at Stripe: the signed
`payment_intent.succeeded` of that off-session PaymentIntent (metadata `off_session_charge`)
records the cycle once through the real webhook handler (moto, localstripe); a replay has no
second effect, the retry finds the cycle paid, and a second charge of the same cycle is refunded
at Stripe."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import pytest
import time_machine

from functions.storefront import get_renewal_payment_page
from tests.integration.storefront.test_checkout import payments
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.integration.stripe.test_stripe_webhook import deliver, event, intent_json, page_intent
from tests.integration.stripe.test_stripe_webhook import stripe_store as stripe_store  # the fixture
from tests.integration.subscriptions.support import offline_commands, recurring, run
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import TEST_SECRET_KEY, stripe_client
from webstore.html import asset_hash
from webstore.recurring import RecurringStatus
from webstore.services import local_bus
from webstore.subscriptions.processor import OutcomeKind
from webstore.subscriptions.stripe_authentication import SCRIPT

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
AUTHENTICATION_CARD = "4000002760003184"  # Stripe's: every payment asks for authentication
VIP_RENEWAL_COMMAND = "say {username} renewed VIP"


@pytest.fixture
def traveller(stripe_store: DemoStore) -> Iterator[time_machine.Coordinates]:
    with time_machine.travel(START, tick=False) as coordinates:
        yield coordinates


def authenticate(stripe_api: str, intent_id: str) -> dict[str, Any]:
    """The player passes their bank's check of the PaymentIntent (what Stripe.js does on-session)."""
    client = stripe_client(stripe_api)
    secret = client.v1.payment_intents.retrieve(intent_id)["client_secret"]
    client.raw_request(
        "post", f"/v1/payment_intents/{intent_id}/_authenticate", client_secret=secret, success="true"
    )
    found = intent_json(stripe_api, intent_id)
    assert found["status"] == "succeeded", found
    return found


def subscribed(invoke: Invoke, demo: DemoStore, stripe_api: str) -> str:
    """Steve buys VIP with the card that always asks for authentication (he passes it in the
    page); the card is saved on his Stripe customer. The subscription's reference."""
    ident = basket_with(invoke, demo, {"package_id": 1})
    intent = page_intent(invoke, ident)
    client = stripe_client(stripe_api)
    card = {"number": AUTHENTICATION_CARD, "exp_month": 12, "exp_year": 2030, "cvc": "123"}
    method = client.v1.payment_methods.create(params={"type": "card", "card": card})["id"]
    confirmed = client.v1.payment_intents.confirm(intent, params={"payment_method": method})
    assert confirmed["status"] == "requires_action"
    paid = authenticate(stripe_api, intent)
    client.v1.payment_methods.attach(method, params={"customer": paid["customer"]})  # kept for renewals
    answer = deliver(invoke, demo, event("payment_intent.succeeded", paid))
    assert answer.status == 200 and answer.json()["result"] == "handled", answer.body
    reference: str = payments(invoke, demo)[0]["txn_id"]
    assert recurring(reference).saved_method == f"{paid['customer']}/{method}"
    return reference


def off_session_intents(stripe_api: str, customer: str) -> list[dict[str, Any]]:
    found = [
        i.to_dict() for i in stripe_client(stripe_api).v1.payment_intents.list(params={"limit": 100}).data
    ]
    return [
        i
        for i in found
        if i.get("customer") == customer and (i.get("metadata") or {}).get("off_session_charge")
    ]


def test_a_renewal_completed_at_stripe_is_recorded_once_from_its_webhook(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str, traveller: time_machine.Coordinates
) -> None:
    reference = subscribed(invoke, stripe_store, stripe_api)
    customer = recurring(reference).saved_method.split("/")[0]
    traveller.move_to(RENEWAL)
    local_bus().published.clear()
    [outcome] = run(RENEWAL).outcomes
    assert outcome.kind is OutcomeKind.RENEWAL_DECLINED and "authenticate" in outcome.detail
    standing = recurring(reference)
    assert standing.status is RecurringStatus.PAST_DUE
    [declined] = off_session_intents(stripe_api, customer)
    assert declined["metadata"] == {"off_session_charge": f"renewal-{reference}-2-1", "account_id": "1"}
    # The player's link: our page, where Stripe.js confirms that PaymentIntent with the saved card.
    link = f"https://shop.test/renewal-payments/{stripe_store.token}/renewal-{reference}-2-1"
    assert standing.renewal_action is not None and standing.renewal_action.url == link
    assert standing.renewal_action.reference == declined["id"]
    [changed] = local_bus().published
    assert changed.type == "recurring-payment.status-changed" and changed.subject["action_url"] == link
    method = standing.saved_method.split("/")[1]
    page = invoke(get_renewal_payment_page.handler, "GET", urlsplit(link).path)
    assert page.status == 200, page.body
    assert f'data-client-secret="{declined["client_secret"]}"' in page.body
    assert f'data-payment-method="{method}"' in page.body and "$4.99 USD" in page.body
    assert "confirmCardPayment" in page.body
    policy = page.headers["content-security-policy"]
    assert f"'sha256-{asset_hash(SCRIPT)}'" in policy and "https://js.stripe.com" in policy
    assert TEST_SECRET_KEY not in page.body

    # The player completes it on-session (their saved card, their bank's check).
    traveller.shift(timedelta(hours=2))
    client = stripe_client(stripe_api)
    client.v1.payment_intents.confirm(declined["id"], params={"payment_method": method})
    succeeded = event("payment_intent.succeeded", authenticate(stripe_api, declined["id"]))
    local_bus().published.clear()
    answer = deliver(invoke, stripe_store, succeeded)
    assert answer.status == 200 and answer.json()["result"] == "handled", answer.body
    standing = recurring(reference)
    assert (standing.status, standing.payment_sequence, standing.fail_count) == (RecurringStatus.ACTIVE, 2, 0)
    assert standing.next_payment_at == datetime(2026, 8, 1, 12, tzinfo=UTC)
    renewal = payments(invoke, stripe_store)[0]
    assert renewal["txn_id"] != reference and renewal["amount"] == "4.99"
    assert offline_commands(invoke, stripe_store).count(VIP_RENEWAL_COMMAND) == 1
    assert [e.type for e in local_bus().published] == [
        "payment.completed",
        "recurring-payment.renewed",
        "recurring-payment.status-changed",
    ]

    # Replayed (the same event id), and sent again as a new event: no second effect.
    local_bus().published.clear()
    assert deliver(invoke, stripe_store, succeeded).json()["result"] == "duplicate"
    again = event("payment_intent.succeeded", intent_json(stripe_api, declined["id"]))
    assert deliver(invoke, stripe_store, again).status == 200
    assert local_bus().published == [] and len(payments(invoke, stripe_store)) == 2
    assert invoke(get_renewal_payment_page.handler, "GET", urlsplit(link).path).status == 404  # done
    assert client.v1.refunds.list(params={"payment_intent": declined["id"]}).data == []  # kept
    # The retry scheduled by the decline finds the cycle paid and charges nobody.
    traveller.move_to(RENEWAL + timedelta(days=1))
    assert run(RENEWAL + timedelta(days=1)).outcomes == []
    assert len(off_session_intents(stripe_api, customer)) == 1
    assert offline_commands(invoke, stripe_store).count(VIP_RENEWAL_COMMAND) == 1

    # A second charge of the same cycle that succeeded at Stripe (a retry racing the player) is
    # given back, never recorded.
    second = client.v1.payment_intents.create(
        params={
            "amount": 499,
            "currency": "usd",
            "customer": customer,
            "payment_method": method,
            "metadata": {"off_session_charge": f"renewal-{reference}-2-2", "account_id": "1"},
            "confirm": True,
        }
    )
    assert second["status"] == "requires_action"
    paid_twice = event("payment_intent.succeeded", authenticate(stripe_api, second["id"]))
    answer = deliver(invoke, stripe_store, paid_twice)
    assert answer.status == 200, answer.body
    assert len(payments(invoke, stripe_store)) == 2
    [refund] = client.v1.refunds.list(params={"payment_intent": second["id"]}).data
    assert refund["amount"] == 499
