"""The Stripe adapter against localstripe, through the official `stripe` library: a payment that
succeeds, a declined card, a saved method charged off-session, refunds, and each call retried
with its idempotency key (no second object, no second charge or refund)."""

from __future__ import annotations

import secrets
from decimal import Decimal

import pytest

from tests.support.localstripe import TEST_SECRET_KEY, pay_in_page, stripe_client
from webstore.checkout.gateway import ChargeRequest, ChargeStatus, OffSessionCharge
from webstore.checkout.stripe_gateway import (
    AmountNotPayable,
    StripeGateway,
    from_minor_units,
    to_minor_units,
)


@pytest.fixture
def gateway(stripe_api: str) -> StripeGateway:
    return StripeGateway(lambda: TEST_SECRET_KEY, publishable_key="pk_test_x", api_base=stripe_api)


def new_intent(gateway: StripeGateway, amount: str = "9.99", *, save: bool = False, key: str = ""):  # type: ignore[no-untyped-def]
    return gateway.create_intent(
        idempotency_key=key or f"checkout-{secrets.token_hex(8)}",
        amount=Decimal(amount),
        currency="USD",
        description="Basket b-1",
        metadata={"basket_ident": "b-1", "account_id": "1"},
        email="steve@example.com",
        save_method=save,
    )


def request(intent_id: str, amount: str = "9.99", currency: str = "USD") -> ChargeRequest:
    return ChargeRequest(intent_id, Decimal(amount), currency, "Basket b-1")


def charges_of(stripe_api: str, intent_id: str) -> int:
    """Charges made for the intent (localstripe lists charges without a payment_intent filter)."""
    listed = stripe_client(stripe_api).v1.charges.list(params={"limit": 100}).data
    return sum(1 for charge in listed if charge["payment_intent"] == intent_id)


def test_minor_units_follow_the_currency_exponent() -> None:
    assert to_minor_units(Decimal("4.99"), "USD") == 499
    assert to_minor_units(Decimal("500"), "JPY") == 500
    assert to_minor_units(Decimal("1.250"), "KWD") == 1250
    assert to_minor_units(Decimal("10"), "ISK") == 1000  # Stripe keeps two decimals for ISK
    assert from_minor_units(499, "USD") == Decimal("4.99")
    assert from_minor_units(500, "JPY") == Decimal(500)
    with pytest.raises(AmountNotPayable):
        to_minor_units(Decimal("4.995"), "USD")
    with pytest.raises(AmountNotPayable):
        to_minor_units(Decimal("1.5"), "JPY")


def test_a_payment_made_in_the_page_is_paid_for_exactly_this_basket(
    gateway: StripeGateway, stripe_api: str
) -> None:
    intent = new_intent(gateway)
    assert (intent.amount, intent.currency, intent.status) == (999, "USD", "requires_payment_method")
    assert intent.client_secret.startswith(intent.id)
    assert intent.metadata == {"basket_ident": "b-1", "account_id": "1"}
    assert pay_in_page(stripe_api, intent.id) == "succeeded"

    paid = gateway.charge(request(intent.id))
    assert (paid.status, paid.reference) == (ChargeStatus.PAID, intent.id)
    # Asked again (the webhook after the return): the same answer, nothing charged twice.
    assert gateway.charge(request(intent.id)) == paid
    assert charges_of(stripe_api, intent.id) == 1


def test_creating_the_intent_again_with_its_key_is_the_same_intent(gateway: StripeGateway) -> None:
    first = new_intent(gateway, key="checkout-b-1-render-1")
    again = new_intent(gateway, key="checkout-b-1-render-1")
    assert again.id == first.id
    assert new_intent(gateway, key="checkout-b-1-render-2").id != first.id


def test_a_declined_card_is_declined_and_its_intent_can_no_longer_be_paid(
    gateway: StripeGateway, stripe_api: str
) -> None:
    intent = new_intent(gateway)
    assert pay_in_page(stripe_api, intent.id, card="4000000000000341") == "requires_payment_method"
    declined = gateway.charge(request(intent.id))
    assert declined.status is ChargeStatus.DECLINED and declined.reason
    assert gateway.intent(intent.id).status == "canceled"  # a stale page cannot pay it later
    assert gateway.charge(request(intent.id)).status is ChargeStatus.DECLINED


def test_an_amount_other_than_the_amount_due_is_refused_and_refunded(
    gateway: StripeGateway, stripe_api: str
) -> None:
    intent = new_intent(gateway, "9.99")
    pay_in_page(stripe_api, intent.id)
    refused = gateway.charge(request(intent.id, amount="14.99"))  # the basket grew meanwhile
    assert refused.status is ChargeStatus.DECLINED
    assert "9.99 USD" in refused.reason and "refunded" in refused.reason
    assert gateway.intent(intent.id).amount_refunded == 999
    assert gateway.charge(request(intent.id, currency="EUR")).status is ChargeStatus.DECLINED


def test_an_intent_of_another_basket_or_a_sandbox_key_does_not_pay(
    gateway: StripeGateway, stripe_api: str
) -> None:
    intent = new_intent(gateway)
    pay_in_page(stripe_api, intent.id)
    other = ChargeRequest(intent.id, Decimal("9.99"), "USD", "Basket b-2")
    assert gateway.charge(other).status is ChargeStatus.DECLINED
    assert gateway.charge(request("sandbox-attempt-key-0001")).status is ChargeStatus.DECLINED


def test_a_saved_method_is_charged_off_session_once_per_key(gateway: StripeGateway, stripe_api: str) -> None:
    intent = new_intent(gateway, save=True)
    pay_in_page(stripe_api, intent.id)
    paid = gateway.charge(request(intent.id))
    assert paid.status is ChargeStatus.PAID and paid.saved_method.startswith("cus_")

    renewal = OffSessionCharge("renewal-7-cycle-2", paid.saved_method, Decimal("9.99"), "USD", "Renewal")
    first = gateway.charge_saved(renewal)
    assert first.status is ChargeStatus.PAID and first.reference.startswith("pi_")
    assert gateway.charge_saved(renewal) == first  # the same cycle retried: the same charge
    assert charges_of(stripe_api, first.reference) == 1
    next_cycle = gateway.charge_saved(
        OffSessionCharge("renewal-7-cycle-3", paid.saved_method, Decimal("9.99"), "USD", "Renewal")
    )
    assert next_cycle.status is ChargeStatus.PAID and next_cycle.reference != first.reference


def test_an_off_session_charge_that_declines_or_needs_authentication_is_declined(
    gateway: StripeGateway, stripe_api: str
) -> None:
    client = stripe_client(stripe_api)
    customer = client.v1.customers.create(params={"email": "alex@example.com"})["id"]
    for card, reason in (("4000000000000341", "declined"), ("4000002500003155", "authenticate")):
        method = client.v1.payment_methods.create(
            params={"type": "card", "card": {"number": card, "exp_month": 12, "exp_year": 2030, "cvc": "123"}}
        )["id"]
        client.v1.payment_methods.attach(method, params={"customer": customer})
        result = gateway.charge_saved(
            OffSessionCharge(f"renewal-{card}", f"{customer}/{method}", Decimal("5"), "USD", "Renewal")
        )
        assert result.status is ChargeStatus.DECLINED, card
        assert reason in result.reason.lower(), result.reason
    assert gateway.charge_saved(OffSessionCharge("r-x", "sandbox-card", Decimal(5), "USD", "R")).status is (
        ChargeStatus.DECLINED
    )


def test_a_refund_is_made_once_however_often_it_is_asked(gateway: StripeGateway, stripe_api: str) -> None:
    intent = new_intent(gateway)
    pay_in_page(stripe_api, intent.id)
    assert gateway.refund(intent.id, Decimal("9.99")) is True
    assert gateway.refund(intent.id, Decimal("9.99")) is True  # the same idempotency key
    refunds = stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent.id}).data
    assert len(refunds) == 1 and refunds[0]["amount"] == 999
    assert gateway.refund_attempt(intent.id) is True  # refunded already: nothing more
    assert len(stripe_client(stripe_api).v1.refunds.list(params={"payment_intent": intent.id}).data) == 1


def test_refunding_an_attempt_cancels_an_unpaid_intent_and_refunds_a_paid_one(
    gateway: StripeGateway, stripe_api: str
) -> None:
    unpaid = new_intent(gateway)
    assert gateway.refund_attempt(unpaid.id) is True
    assert gateway.intent(unpaid.id).status == "canceled"
    paid = new_intent(gateway)
    pay_in_page(stripe_api, paid.id)
    assert gateway.refund_attempt(paid.id) is True
    assert gateway.intent(paid.id).amount_refunded == 999
    assert gateway.refund_attempt("sandbox-attempt-key") is True  # nothing of Stripe's
    assert gateway.refund("pi_doesnotexist0000", Decimal(1)) is False
