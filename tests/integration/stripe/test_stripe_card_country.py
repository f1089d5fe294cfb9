"""The card's country as the third piece of tax evidence on every way a Stripe payment is
confirmed: the player's return (the synchronous pay, test_stripe_tax_checkout.py), the
`payment_intent.succeeded` webhook alone, and the reconciler finishing an attempt that stopped
after the charge. Each reads the PaymentIntent with its charge and payment method expanded
(localstripe's test cards are French)."""

from __future__ import annotations

import pytest

from tests.integration.storefront.support import ACCOUNT
from tests.integration.storefront.test_checkout import new_basket
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.storefront.test_pay_faults import Crash
from tests.integration.stripe.test_stripe_webhook import (  # noqa: F401
    deliver,
    event,
    intent_json,
    page_intent,
    stripe_store,
)
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import pay_in_page
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.checkout import checkout, reconcile
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import get_services
from webstore.tax.rates import EU_STANDARD_RATES


def taxed(demo: DemoStore) -> None:
    tax = Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.MANUAL, rates=EU_STANDARD_RATES)
    brand(demo, tax=tax)


def paid_intent(invoke: Invoke, demo: DemoStore, stripe_api: str, country: str) -> tuple[str, str]:
    ident = new_basket(invoke, demo)
    assert billing(invoke, ident, country, country).status == 303
    intent = page_intent(invoke, ident)
    assert pay_in_page(stripe_api, intent) == "succeeded"
    return ident, intent


def latest(demo: DemoStore) -> PaymentRecord:
    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    return payment


@pytest.mark.parametrize("country", ["FR", "DE"])
def test_the_webhook_alone_records_the_cards_country(
    stripe_store: DemoStore,  # noqa: F811
    invoke: Invoke,
    stripe_api: str,
    country: str,
) -> None:
    taxed(stripe_store)
    _, intent = paid_intent(invoke, stripe_store, stripe_api, country)
    answer = deliver(invoke, stripe_store, event("payment_intent.succeeded", intent_json(stripe_api, intent)))
    assert answer.status == 200 and answer.json()["result"] == "handled", answer.body
    evidence = latest(stripe_store).tax.evidence  # type: ignore[union-attr]
    assert (evidence.billing_country, evidence.ip_country, evidence.card_country) == (country, country, "FR")
    both = ["billing_country", "ip_country"]
    assert evidence.agree == ([*both, "card_country"] if country == "FR" else both)
    assert not evidence.conflict  # two pieces agree; the French card does not outweigh them


def test_the_reconciler_records_the_cards_country(
    stripe_store: DemoStore,  # noqa: F811
    invoke: Invoke,
    stripe_api: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    taxed(stripe_store)
    ident, intent = paid_intent(invoke, stripe_store, stripe_api, "FR")
    services = get_services()
    with monkeypatch.context() as patched:  # the process dies after the charge, before recording
        patched.setattr(checkout, "fulfil", lambda *a, **k: (_ for _ in ()).throw(Crash("died")))
        with pytest.raises(Crash):
            checkout.pay(services, ident, intent, "")
    assert PaymentRepository(stripe_store.table).latest(ACCOUNT, 1) == []
    done = reconcile.reconcile(services, ACCOUNT, ident, intent)
    assert done.outcome is reconcile.Reconciled.RECORDED, done.detail
    evidence = latest(stripe_store).tax.evidence  # type: ignore[union-attr]
    assert (evidence.card_country, evidence.decided) == ("FR", "FR")
    assert "card_country" in evidence.agree
