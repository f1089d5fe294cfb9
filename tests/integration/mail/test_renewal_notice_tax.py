"""What a taxed subscription is said to cost (docs/tax.md, "Renewals"): VIP (4.99 a month)
bought from France in a store with manual rates; the operator's view of the subscription
(`GET /recurring-payments/{reference}`: `amount.amount` what the next renewal charges, `amount.tax`
the tax in it) and the "renews on …" e-mail both tell what the renewal then charges, at the rate
of the day (France's rate changed after the purchase), tax on top or inside."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal as D
from typing import Any
from urllib.parse import urlencode

import pytest
import time_machine

from functions.operator import get_recurring_payment
from functions.storefront import get_checkout_page, get_subscription_page, pay_checkout
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout import FORM, attempt_key_of
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.integration.subscriptions.support import run
from tests.integration.subscriptions.test_renewal_tax import latest, rates
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.catalog import TaxMode
from webstore.event_types import RENEWAL_UPCOMING
from webstore.subscriptions.processor import OutcomeKind

from .conftest import MailQueue, published

START = datetime(2026, 6, 1, 12, tzinfo=UTC)
RENEWAL = datetime(2026, 7, 1, 12, tzinfo=UTC)
EMAIL = "steve@example.com"
EXPECTED = {  # mode -> (amount, tax) of the next renewal: at France's 20%, then at 21%
    TaxMode.EXCLUSIVE: ((5.99, 1.0), (6.04, 1.05)),
    TaxMode.INCLUSIVE: ((4.99, 0.83), (4.99, 0.87)),
}


def bought_from_france(invoke: Invoke, demo: DemoStore) -> str:
    ident = basket_with(invoke, demo, {"package_id": 1})
    assert billing(invoke, ident, "FR", "FR").status == 303
    form = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    shown = re.search(r'name=amount_due value="([^"]+)"', form.body)
    assert shown, form.body
    fields = {
        "attempt_key": attempt_key_of(form),
        "card_number": "4242",
        "amount_due": shown.group(1),
        "subscription_consent": "yes",
        "email": EMAIL,
    }
    paid = invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(fields), headers=FORM
    )
    assert paid.status == 303, paid.body
    return latest(demo).transaction_id


def next_charge(invoke: Invoke, demo: DemoStore, reference: str) -> tuple[float, float]:
    answer = invoke(
        get_recurring_payment.handler,
        "GET",
        f"/recurring-payments/{reference}",
        headers=secret_headers(demo.server_secret),
    )
    assert answer.status == 200, answer.body
    amount = answer.json()["amount"]
    assert set(amount) == {"amount", "tax", "period", "currency"}  # the Checkout API's shape
    return amount["amount"], amount["tax"]


@pytest.mark.parametrize("mode", [TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
def test_the_view_and_the_notice_tell_what_the_renewal_charges(
    invoke: Invoke, demo: DemoStore, ses: Callable[[], list[Any]], mail_queue: MailQueue, mode: TaxMode
) -> None:
    at_first, at_renewal = EXPECTED[mode]
    rates(demo, mode)
    with time_machine.travel(START, tick=False) as traveller:
        reference = bought_from_france(invoke, demo)
        assert next_charge(invoke, demo, reference) == at_first

        rates(demo, mode, FR=D("21"))  # France's rate changes before the renewal
        assert next_charge(invoke, demo, reference) == at_renewal

        notice_at = RENEWAL - timedelta(days=3) + timedelta(minutes=1)
        traveller.move_to(notice_at)
        assert run(notice_at).notices.sent == [reference]
        [event] = published(RENEWAL_UPCOMING)
        assert event.subject["renewal_charge"] == {
            "amount": at_renewal[0],
            "tax": at_renewal[1],
            "currency": "USD",
        }
        assert mail_queue.deliver([event]) == {"batchItemFailures": []}
        [message] = ses()
        assert message.destinations["ToAddresses"] == [EMAIL]
        assert f"${at_renewal[0]:.2f}" in message.body and "will be charged" in message.body
        if mode is TaxMode.EXCLUSIVE:
            assert "$4.99" not in message.body  # not the untaxed price
        # The player's page, from the notice's link: the same amount.
        link = re.search(r"https://shop\.test(/subscriptions/[A-Za-z0-9_.\-]+)", message.body)
        assert link, message.body
        page = invoke(get_subscription_page.handler, "GET", link.group(1))
        assert page.status == 200, page.body
        assert f"${at_renewal[0]:.2f} USD every month" in page.body

        traveller.move_to(RENEWAL)
        [outcome] = run(RENEWAL).outcomes
        assert outcome.kind is OutcomeKind.RENEWAL_CHARGED, outcome.describe()
    renewal = latest(demo)
    assert renewal.tax is not None
    assert (float(renewal.amount), float(renewal.tax.tax)) == at_renewal  # what was told is charged
    assert next_charge(invoke, demo, reference) == at_renewal  # and the next one, the same


def test_a_declined_renewal_mail_tells_the_taxed_charge(
    invoke: Invoke, demo: DemoStore, ses: Callable[[], list[Any]], mail_queue: MailQueue
) -> None:
    """ "We could not take …" names what the renewal tries to charge (tax on top: 5.99 at France's
    20%), not the untaxed price."""
    from tests.integration.mail.test_mail_language import renewal_failed
    from webstore.event_types import EventType

    rates(demo, TaxMode.EXCLUSIVE)
    with time_machine.travel(START, tick=False):
        bought_from_france(invoke, demo)
        [payment] = published(EventType.PAYMENT_COMPLETED)
        assert mail_queue.deliver([renewal_failed(payment)]) == {"batchItemFailures": []}
    [message] = ses()
    assert "$5.99" in message.body and "$4.99" not in message.body
