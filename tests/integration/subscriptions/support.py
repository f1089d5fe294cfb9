"""Helpers of the subscription tests: buy through the real hosted checkout, read what the
plugin and the operator interface see, run the processor."""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import get_offline_commands
from functions.storefront import get_checkout_page, pay_checkout
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout import FORM, attempt_key_of, payments
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.recurring import RecurringPayment
from webstore.repo import Transaction
from webstore.repo.payment_effects import EffectKeys, EffectReads, PaymentEffectsRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.sequences import SequenceRepository
from webstore.services import get_services
from webstore.subscriptions.processor import RunReport, run_due

ACCOUNT = 1


def pay_form(invoke: Invoke, ident: str, card: str = "", *, consent: bool = True) -> Response:
    """Submit the checkout page's form as a browser would, the consent box ticked or not."""
    form = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    shown = re.search(r'name=amount_due value="([^"]+)"', form.body)
    assert shown, form.body
    fields = {
        "attempt_key": attempt_key_of(form),
        "card_number": card or "4242",
        "amount_due": shown.group(1),
    }
    if consent:
        fields["subscription_consent"] = "yes"
    return invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(fields), headers=FORM
    )


def buy(invoke: Invoke, demo: DemoStore, *adds: dict[str, Any], card: str = "") -> dict[str, Any]:
    """Steve pays a basket of `adds` through the hosted checkout (consent ticked); the payment."""
    ident = basket_with(invoke, demo, *adds)
    answer = pay_form(invoke, ident, card)
    assert answer.status == 303, answer.body
    latest: dict[str, Any] = payments(invoke, demo)[0]
    return latest


def recurring(reference: str) -> RecurringPayment:
    found = RecurringPaymentRepository(get_services().table).get(ACCOUNT, reference)
    assert found is not None
    return found


def offline_commands(invoke: Invoke, demo: DemoStore) -> list[str]:
    """The command texts server 1's plugin would fetch now."""
    response = invoke(
        get_offline_commands.handler,
        "GET",
        "/queue/offline-commands",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200, response.body
    return [c["command"] for c in response.json()["commands"]]


def run(now: datetime) -> RunReport:
    return run_due(get_services(), now)


def another_writer_takes_command_ids(
    monkeypatch: pytest.MonkeyPatch, taken: list[int], reads: list[int]
) -> None:
    """The first read of a payment's effects (sequences included) is overtaken: another write
    takes 3 command ids after it, so the payment's transaction loses the ids it took from that
    read. `reads` counts the effect reads (a retry reads again)."""
    original = PaymentEffectsRepository.read

    def read_then_overtaken(self: PaymentEffectsRepository, wanted: EffectKeys) -> EffectReads:
        found = original(self, wanted)
        reads.append(1)
        if not taken:
            other = SequenceRepository(self.table).read(wanted.account_id)
            taken.extend(other.take("command", 3))
            tx = Transaction(self.table)
            other.add_to(tx)
            tx.commit()
        return found

    monkeypatch.setattr(PaymentEffectsRepository, "read", read_then_overtaken)


def queued_command_ids(invoke: Invoke, demo: DemoStore, command: str) -> list[int]:
    """The ids of server 1's offline commands with the text `command`."""
    response = invoke(
        get_offline_commands.handler,
        "GET",
        "/queue/offline-commands",
        headers=secret_headers(demo.server_secret),
    )
    assert response.status == 200, response.body
    return [int(c["id"]) for c in response.json()["commands"] if c["command"] == command]
