"""A Stripe Tax store's renewal (official `stripe` library, localstripe with its Stripe Tax
stand-in): VIP (4.99 a month, tax on top) bought from Washington (98101, 10.25%) with a card kept
for renewals; the clock renews it a month later with one Stripe Tax calculation for that buyer,
the renewal payment stores its tax lines and the taxed total (what the off-session charge took),
its invoice shows them, Stripe's tax transaction is recorded under `renewal-{subscription}-{cycle}`
and the renewal's refund reverses it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal as D
from typing import Any

import httpx
import pytest
import time_machine

from functions.operator import get_recurring_payment, update_payment
from functions.storefront import get_checkout_return, get_invoice
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.integration.stripe.test_stripe_tax_checkout import registered  # noqa: F401
from tests.integration.stripe.test_stripe_webhook import intent_json, page_intent, stripe_store  # noqa: F401
from tests.integration.subscriptions.support import ACCOUNT, recurring, run
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import TEST_SECRET_KEY, stripe_client
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.invoices import documents
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import get_services
from webstore.subscriptions.notices import notice_event
from webstore.subscriptions.processor import OutcomeKind

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
TAX, TOTAL = D("0.51"), D("5.50")  # 4.99 at Washington's 10.25%, on top


@pytest.fixture
def traveller(stripe_store: DemoStore) -> Iterator[time_machine.Coordinates]:  # noqa: F811
    with time_machine.travel(START, tick=False) as coordinates:
        yield coordinates


def latest(demo: DemoStore) -> PaymentRecord:
    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    return payment


def transactions(api: str, reference: str) -> list[dict[str, Any]]:
    """The Stripe Tax transactions and reversals whose reference starts with `reference`."""
    answer = httpx.get(
        f"{api}/_test/tax/transactions", params={"reference": reference}, auth=(TEST_SECRET_KEY, "")
    )
    answer.raise_for_status()
    found: list[dict[str, Any]] = answer.json()["data"]
    return found


def next_charge(invoke: Invoke, demo: DemoStore, reference: str) -> tuple[float, float]:
    answer = invoke(
        get_recurring_payment.handler,
        "GET",
        f"/recurring-payments/{reference}",
        headers=secret_headers(demo.server_secret),
    )
    assert answer.status == 200, answer.body
    return answer.json()["amount"]["amount"], answer.json()["amount"]["tax"]


def subscribed_from_washington(invoke: Invoke, demo: DemoStore, api: str) -> PaymentRecord:
    """Steve buys VIP from Seattle, pays in the page; his card is kept on his Stripe customer."""
    ident = basket_with(invoke, demo, {"package_id": 1})
    assert billing(invoke, ident, "US", "US", billing_postal_code="98101").status == 303
    intent = page_intent(invoke, ident)
    client = stripe_client(api)
    card = {"number": "4242424242424242", "exp_month": 12, "exp_year": 2030, "cvc": "123"}
    method = client.v1.payment_methods.create(params={"type": "card", "card": card})["id"]
    paid = client.v1.payment_intents.confirm(intent, params={"payment_method": method})
    assert paid["status"] == "succeeded"
    client.v1.payment_methods.attach(method, params={"customer": paid["customer"]})  # kept for renewals
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303, back.body
    first = latest(demo)
    assert recurring(first.transaction_id).saved_method == f"{paid['customer']}/{method}"
    return first


def test_a_stripe_tax_renewal_is_calculated_recorded_invoiced_and_reversed_on_refund(
    stripe_store: DemoStore,  # noqa: F811
    registered: str,  # noqa: F811
    invoke: Invoke,
    traveller: time_machine.Coordinates,
    caplog: pytest.LogCaptureFixture,
) -> None:
    demo = stripe_store
    brand(demo, tax=Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.STRIPE_TAX, origin_country="DE"))
    first = subscribed_from_washington(invoke, demo, registered)
    assert first.tax is not None and (first.tax.tax, first.amount) == (TAX, TOTAL)
    reference = first.transaction_id

    # Before the renewal: the view at the last charge's rates (no Stripe call on a GET); the
    # notice priced by one Stripe Tax calculation, as the renewal will be.
    assert next_charge(invoke, demo, reference) == (float(TOTAL), float(TAX))
    notice_at = RENEWAL - timedelta(days=3)
    traveller.move_to(notice_at)
    notice = notice_event(get_services(), recurring(reference), notice_at)
    assert "no tax calculation" not in caplog.text  # Stripe's, not the estimate
    assert notice.subject["renewal_charge"] == {"amount": float(TOTAL), "tax": float(TAX), "currency": "USD"}

    traveller.move_to(RENEWAL)
    [outcome] = run(RENEWAL).outcomes
    assert outcome.kind is OutcomeKind.RENEWAL_CHARGED, outcome.describe()

    renewal = latest(demo)
    assert renewal.recurring_payment_reference == reference and renewal.id != first.id
    stored = renewal.tax
    assert stored is not None and stored.calculation is TaxCalculation.STRIPE_TAX
    assert stored.stripe_calculation_id and stored.stripe_calculation_id != first.tax.stripe_calculation_id
    assert (stored.country, stored.postal_code, stored.tax, renewal.amount) == ("US", "98101", TAX, TOTAL)
    assert [(line.net, line.rate, line.tax) for line in stored.lines] == [(D("4.99"), D("10.25"), TAX)]
    assert stored.net + stored.tax == stored.gross == TOTAL
    assert stored.evidence == first.tax.evidence
    # What the off-session charge took is the taxed total.
    assert renewal.checkout_attempt and renewal.checkout_attempt.startswith("pi_")
    charged = intent_json(registered, renewal.checkout_attempt)
    assert D(charged["amount"]) / 100 == TOTAL
    assert recurring(reference).amount == D("4.99")  # the agreed price is kept

    # Stripe's tax reports hold the renewal under the cycle's reference.
    assert stored.stripe_transaction_id
    [made] = transactions(registered, f"renewal-{reference}-")
    assert (made["id"], made["reference"]) == (stored.stripe_transaction_id, f"renewal-{reference}-2")
    assert (made["amount_total"], made["tax_amount"]) == (550, 51)

    page = invoke(get_invoice.handler, "GET", f"/invoices/{documents.invoice_token(renewal)}")
    assert page.status == 200, page.body
    assert 'id="buyer-country">US<' in page.body
    rows = [r for r in re.findall(r"<tr><td>(.*?)</td></tr>", page.body) if "%" in r]
    assert any("10.25%" in r and f"${TAX}" in r for r in rows), rows
    assert f"${TAX}" in page.body.split('id="tax-total"')[1][:40]

    # The renewal refunded: its Stripe Tax transaction reversed in full.
    refunded = invoke(
        update_payment.handler,
        "PUT",
        f"/payments/{renewal.transaction_id}",
        body={"status": "refund"},
        headers={"X-Tebex-Secret": demo.server_secret},
    )
    assert refunded.status == 200, refunded.body
    [credit] = latest(demo).refunds
    [reversal] = transactions(registered, f"{renewal.transaction_id}-")
    assert reversal["reference"] == f"{renewal.transaction_id}-{credit.credit_note.credit_label}"
    assert reversal["type"] == "reversal" and reversal["reversal"]["original_transaction"] == made["id"]
    assert (reversal["amount_total"], reversal["tax_amount"]) == (-550, -51)
