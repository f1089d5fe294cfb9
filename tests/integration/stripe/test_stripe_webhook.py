"""The Stripe webhook route through its real handler (moto table, access guard), with events
signed the way Stripe signs them (`t=…,v1=HMAC-SHA256(secret, "{t}.{payload}")`) and the
PaymentIntents they name made in localstripe by the real checkout page."""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import time
from collections.abc import Iterator
from typing import Any

import pytest

from functions.operator import get_payment, update_payment
from functions.storefront import get_checkout_page, get_checkout_return, stripe_webhook
from tests.integration.storefront.test_checkout import basket_json, new_basket, payments
from tests.support.demo import DemoStore, demo_catalog_data
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.localstripe import (
    TEST_PUBLISHABLE_KEY,
    TEST_SECRET_KEY,
    TEST_WEBHOOK_SECRET,
    pay_in_page,
    stripe_client,
)
from webstore import services as services_module
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.event_types import EventType
from webstore.repo.payments import PaymentRepository
from webstore.repo.store import StoreRepository
from webstore.sealing import open_sealed
from webstore.services import get_services, local_bus

ACCOUNT = 1


@pytest.fixture
def stripe_store(demo: DemoStore, stripe_api: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[DemoStore]:
    """The demo store with Stripe keys (sealed on import), its Stripe calls sent to localstripe."""
    monkeypatch.setenv("WEBSTORE_STRIPE_API_BASE", stripe_api)
    services_module.reset()
    data = demo_catalog_data()
    data["gateways"] = {
        "stripe": {
            "publishable_key": TEST_PUBLISHABLE_KEY,
            "secret_key": TEST_SECRET_KEY,
            "webhook_secret": TEST_WEBHOOK_SECRET,
        }
    }
    import_catalog(demo.table, parse_catalog(data))
    local_bus().published.clear()
    yield demo
    local_bus().published.clear()
    services_module.reset()


def sign(payload: str, secret: str = TEST_WEBHOOK_SECRET, at: int | None = None) -> str:
    at = at or int(time.time())
    digest = hmac.new(secret.encode(), f"{at}.{payload}".encode(), hashlib.sha256).hexdigest()
    return f"t={at},v1={digest}"


def event(event_type: str, obj: dict[str, Any], event_id: str | None = None) -> str:
    return json.dumps(
        {
            "id": event_id or f"evt_{secrets.token_hex(8)}",
            "object": "event",
            "type": event_type,
            "api_version": "2026-10-28.endive",
            "created": int(time.time()),
            "livemode": False,
            "data": {"object": obj},
        }
    )


def deliver(invoke: Invoke, demo: DemoStore, payload: str, signature: str | None = None) -> Response:
    return invoke(
        stripe_webhook.handler,
        "POST",
        f"/webhooks/stripe/{demo.token}",
        raw_body=payload,
        headers={"content-type": "application/json", "stripe-signature": signature or sign(payload)},
    )


def page_intent(invoke: Invoke, ident: str) -> str:
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200, page.body
    match = re.search(r'data-client-secret="(pi_[A-Za-z0-9]+)_secret_', page.body)
    assert match, page.body
    return match.group(1)


def intent_json(stripe_api: str, intent_id: str) -> dict[str, Any]:
    found: dict[str, Any] = stripe_client(stripe_api).v1.payment_intents.retrieve(intent_id).to_dict()
    return found


def published_types() -> list[str]:
    return [str(e.type) for e in local_bus().published]


def completed_event_ids() -> set[str]:
    """The distinct `payment.completed` events receivers see: the second of the return and the
    webhook finishes what the first may not have (its payment was recorded and the basket
    completed in one transaction), publishing the same event id again, which delivery dedupes."""
    return {e.id for e in local_bus().published if e.type == EventType.PAYMENT_COMPLETED}


def paid_basket(invoke: Invoke, demo: DemoStore, stripe_api: str) -> tuple[str, str, dict[str, Any]]:
    """A basket paid with Stripe and settled by `payment_intent.succeeded`: (ident, intent, payment)."""
    ident = new_basket(invoke, demo)
    intent = page_intent(invoke, ident)
    assert pay_in_page(stripe_api, intent) == "succeeded"
    answer = deliver(invoke, demo, event("payment_intent.succeeded", intent_json(stripe_api, intent)))
    assert answer.status == 200 and answer.json()["result"] == "handled", answer.body
    [payment] = [p for p in payments(invoke, demo) if p["player"]["name"] == "Steve"]
    return ident, intent, payment


def payment_status(invoke: Invoke, demo: DemoStore, txn: str) -> str:
    found = invoke(
        get_payment.handler, "GET", f"/payments/{txn}", headers={"X-Tebex-Secret": demo.server_secret}
    )
    status: str = found.json()["status"]
    return status


def test_the_keys_are_sealed_in_the_store_item_and_never_in_the_page(
    stripe_store: DemoStore, invoke: Invoke
) -> None:
    stored = StoreRepository(stripe_store.table).store(ACCOUNT).gateways.stripe
    assert stored is not None and stored.publishable_key == TEST_PUBLISHABLE_KEY
    assert (
        TEST_SECRET_KEY not in stored.model_dump_json()
        and TEST_WEBHOOK_SECRET not in stored.model_dump_json()
    )
    assert open_sealed(get_services().secrets, stored.secret_key_sealed) == TEST_SECRET_KEY
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{new_basket(invoke, stripe_store)}")
    assert TEST_PUBLISHABLE_KEY in page.body and "https://js.stripe.com/v3/" in page.body
    assert TEST_SECRET_KEY not in page.body and TEST_WEBHOOK_SECRET not in page.body
    assert "script-src https://js.stripe.com 'sha256-" in page.headers["content-security-policy"]


def test_payment_succeeded_fulfils_the_basket_once(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    assert payment["gateway"] == {"id": 3, "name": "Stripe"}
    assert basket_json(invoke, stripe_store, ident)["complete"] is True
    assert len(completed_event_ids()) == 1
    assert intent_json(stripe_api, intent)["amount"] == round(float(payment["amount"]) * 100)
    # The player's return from Stripe after the webhook: the receipt, nothing fulfilled twice.
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303 and back.headers["location"].endswith(f"/checkout/{ident}/receipt")
    assert len(payments(invoke, stripe_store)) == 1
    assert len(completed_event_ids()) == 1


def test_the_return_from_stripe_settles_before_the_webhook(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)
    pay_in_page(stripe_api, intent)
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303, back.body
    late = deliver(invoke, stripe_store, event("payment_intent.succeeded", intent_json(stripe_api, intent)))
    assert late.status == 200
    assert len(payments(invoke, stripe_store)) == 1
    assert len(completed_event_ids()) == 1


def test_payment_failed_publishes_declined_and_writes_nothing(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)
    assert pay_in_page(stripe_api, intent, card="4000000000000341") == "requires_payment_method"
    answer = deliver(
        invoke, stripe_store, event("payment_intent.payment_failed", intent_json(stripe_api, intent))
    )
    assert answer.status == 200 and answer.json()["result"] == "handled"
    assert published_types() == [EventType.PAYMENT_DECLINED]
    assert basket_json(invoke, stripe_store, ident)["complete"] is False
    assert payments(invoke, stripe_store) == []
    # The player pays the same page with another card afterwards: fulfilled.
    assert pay_in_page(stripe_api, intent) == "succeeded"
    deliver(invoke, stripe_store, event("payment_intent.succeeded", intent_json(stripe_api, intent)))
    assert basket_json(invoke, stripe_store, ident)["complete"] is True


def test_a_bad_signature_is_refused_and_touches_nothing(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)
    pay_in_page(stripe_api, intent)
    payload = event("payment_intent.succeeded", intent_json(stripe_api, intent))
    for signature in (sign(payload, secret="whsec_somebodyelse0001"), "t=1,v1=00", "", sign(payload, at=1)):
        refused = deliver(invoke, stripe_store, payload, signature or "garbage")
        assert refused.status == 400, (signature, refused.body)
    assert basket_json(invoke, stripe_store, ident)["complete"] is False
    assert published_types() == []
    assert deliver(invoke, stripe_store, payload).status == 200  # the genuine one still works


def test_a_replayed_event_has_no_second_effect(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    dispute = {
        "id": "dp_replayed0001",
        "object": "dispute",
        "payment_intent": intent,
        "status": "needs_response",
    }
    opened = event("charge.dispute.created", dispute, event_id="evt_dispute_replayed")
    assert deliver(invoke, stripe_store, opened).json()["result"] == "handled"
    won = event("charge.dispute.closed", {**dispute, "status": "won"})
    assert deliver(invoke, stripe_store, won).json()["result"] == "handled"
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == "Complete"
    again = deliver(invoke, stripe_store, opened)  # Stripe delivers the opening once more
    assert again.status == 200 and again.json()["result"] == "duplicate"
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == "Complete"


def test_unknown_event_types_are_acknowledged_and_ignored(stripe_store: DemoStore, invoke: Invoke) -> None:
    answer = deliver(invoke, stripe_store, event("customer.created", {"id": "cus_1", "object": "customer"}))
    assert answer.status == 200 and answer.json()["result"] == "ignored"


def test_a_dashboard_refund_is_recorded_with_its_commands_and_event(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    client = stripe_client(stripe_api)
    client.v1.refunds.create(params={"payment_intent": intent})  # in the Stripe dashboard
    charge = client.v1.payment_intents.retrieve(intent).to_dict()["latest_charge"]
    charge_obj = {"id": charge, "object": "charge", "payment_intent": intent, "refunded": True}
    assert deliver(invoke, stripe_store, event("charge.refunded", charge_obj)).json()["result"] == "handled"
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == "Refund"
    assert published_types().count(EventType.PAYMENT_REFUNDED) == 1


def test_an_operator_refund_goes_through_stripe_first_and_once(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    for _ in range(2):
        changed = invoke(
            update_payment.handler,
            "PUT",
            f"/payments/{payment['txn_id']}",
            body={"status": "refund"},
            headers={"X-Tebex-Secret": stripe_store.server_secret},
        )
        assert changed.status == 200, changed.body
    refunds = stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent}).data
    assert len(refunds) == 1
    assert published_types().count(EventType.PAYMENT_REFUNDED) == 1
    # Stripe's own `charge.refunded` for it arrives afterwards: nothing more.
    charge_obj = {"id": "ch_x", "object": "charge", "payment_intent": intent, "refunded": True}
    assert deliver(invoke, stripe_store, event("charge.refunded", charge_obj)).status == 200
    assert published_types().count(EventType.PAYMENT_REFUNDED) == 1


DISPUTE_OUTCOMES = [
    ("won", "Complete", EventType.PAYMENT_DISPUTE_WON),
    ("lost", "Chargeback", EventType.PAYMENT_DISPUTE_LOST),
]


@pytest.mark.parametrize(("outcome", "status", "final"), DISPUTE_OUTCOMES)
def test_a_dispute_opens_a_chargeback_and_closes_won_or_lost(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str, outcome: str, status: str, final: EventType
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    dispute = {
        "id": f"dp_{outcome}0001",
        "object": "dispute",
        "payment_intent": intent,
        "status": "needs_response",
    }
    assert (
        deliver(invoke, stripe_store, event("charge.dispute.created", dispute)).json()["result"] == "handled"
    )
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == "Chargeback"
    assert credit_notes(stripe_store, payment["txn_id"]) == []  # open: it may still be won
    assert EventType.PAYMENT_DISPUTE_OPENED in published_types()
    assert invoke_user(invoke, stripe_store)["chargebackRate"] == 1.0  # the dispute counts
    closed = event("charge.dispute.closed", {**dispute, "status": outcome})
    assert deliver(invoke, stripe_store, closed).json()["result"] == "handled"
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == status
    assert published_types()[-2:] == [final, EventType.PAYMENT_DISPUTE_CLOSED]
    # Lost: the sale is reversed by a credit note of the whole payment (docs/tax.md); won: none.
    assert credit_notes(stripe_store, payment["txn_id"]) == (["chargeback"] if outcome == "lost" else [])


def credit_notes(demo: DemoStore, txn: str) -> list[str]:
    found = PaymentRepository(demo.table).by_transaction(ACCOUNT, txn)
    return [refund.reference for refund in found.refunds]


def test_a_dispute_closed_before_its_opening_arrives_is_not_opened_again(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    _, intent, payment = paid_basket(invoke, stripe_store, stripe_api)
    dispute = {"id": "dp_ooo0001", "object": "dispute", "payment_intent": intent, "status": "won"}
    assert deliver(invoke, stripe_store, event("charge.dispute.closed", dispute)).status == 200
    late = deliver(
        invoke, stripe_store, event("charge.dispute.created", {**dispute, "status": "needs_response"})
    )
    assert late.status == 200 and late.json()["result"] == "ignored"
    assert payment_status(invoke, stripe_store, payment["txn_id"]) == "Complete"


def test_a_refund_that_arrives_before_the_payment_means_it_is_never_fulfilled(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)
    pay_in_page(stripe_api, intent)
    succeeded = event("payment_intent.succeeded", intent_json(stripe_api, intent))  # as sent then
    stripe_client(stripe_api).v1.refunds.create(params={"payment_intent": intent})
    refunded = {"id": "ch_y", "object": "charge", "payment_intent": intent, "refunded": True}
    assert deliver(invoke, stripe_store, event("charge.refunded", refunded)).json()["result"] == "ignored"
    assert deliver(invoke, stripe_store, succeeded).status == 200
    assert basket_json(invoke, stripe_store, ident)["complete"] is False
    assert payments(invoke, stripe_store) == []


def invoke_user(invoke: Invoke, demo: DemoStore) -> dict[str, Any]:
    from functions.operator import get_user

    found = invoke(get_user.handler, "GET", "/user/Steve", headers={"X-Tebex-Secret": demo.server_secret})
    assert found.status == 200, found.body
    lookup: dict[str, Any] = found.json()
    return lookup


def test_a_return_naming_an_unknown_or_another_baskets_intent_settles_nothing(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident, other = new_basket(invoke, stripe_store), new_basket(invoke, stripe_store)
    intent = page_intent(invoke, other)
    pay_in_page(stripe_api, intent)
    for named in ("pi_doesnotexist000000", intent, "not-an-intent"):
        back = invoke(
            get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": named}
        )
        assert back.status == 422, (named, back.status, back.body)
    assert basket_json(invoke, stripe_store, ident)["complete"] is False
    assert payments(invoke, stripe_store) == []


def test_an_intent_for_an_amount_the_basket_no_longer_owes_is_refused_and_refunded(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    from functions.storefront import add_basket_package

    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)  # 2 x 2.50 = 5.00
    more = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 10, "quantity": 1},
    )
    assert more.status == 200, more.body  # another tab added a package after the page was shown
    pay_in_page(stripe_api, intent)
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 402 and "was refunded" in back.body, back.body
    assert [
        r["amount"] for r in stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent}).data
    ] == [500]
    late = deliver(invoke, stripe_store, event("payment_intent.succeeded", intent_json(stripe_api, intent)))
    assert late.status == 200
    assert basket_json(invoke, stripe_store, ident)["complete"] is False
    assert payments(invoke, stripe_store) == []
    assert EventType.PAYMENT_DECLINED in published_types()


def test_a_return_after_a_failed_payment_shows_the_page_again(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    ident = new_basket(invoke, stripe_store)
    intent = page_intent(invoke, ident)
    pay_in_page(stripe_api, intent, card="4000000000000341")
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 402 and "declined" in back.body.lower() and "id=stripe-payment" in back.body
    assert "script-src" in back.headers["content-security-policy"]
    assert payments(invoke, stripe_store) == []


def test_a_basket_gift_cards_cover_completes_without_a_card(
    stripe_store: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    from functions.storefront import apply_giftcard, pay_checkout
    from tests.integration.storefront.test_checkout import attempt_key_of

    ident = new_basket(invoke, stripe_store)  # 5.00, the card holds 10.00
    card = {"card_number": "GIFT-0000-0000-0001"}
    assert invoke(apply_giftcard.handler, "POST", f"/api/baskets/{ident}/giftcards", body=card).status == 200
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200 and "id=stripe-payment" not in page.body and "<script" not in page.body
    paid = invoke(
        pay_checkout.handler,
        "POST",
        f"/checkout/{ident}/pay",
        raw_body=f"attempt_key={attempt_key_of(page)}&amount_due=0",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert paid.status == 303, paid.body
    [payment] = payments(invoke, stripe_store)
    assert payment["amount"] == "0.00" and payment["gateway"]["name"] == "Stripe"
