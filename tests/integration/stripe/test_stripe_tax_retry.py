"""A Stripe Tax transaction that cannot be made when the payment is recorded (Stripe out of
order: localstripe's Stripe Tax extension failing on demand) is retried by the clock: the
payment stands with its calculation, the panel shows the transaction as not recorded yet, a run
while Stripe still fails leaves it for the next, and the run after Stripe is back makes it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx

from functions.admin import get_payment_page
from functions.storefront import get_checkout_return
from tests.integration.storefront.support import ACCOUNT
from tests.integration.storefront.test_checkout import new_basket
from tests.integration.storefront.test_checkout_pages import brand
from tests.integration.storefront.test_checkout_tax import billing
from tests.integration.stripe.test_stripe_tax_checkout import registered  # noqa: F401
from tests.integration.stripe.test_stripe_webhook import page_intent, stripe_store  # noqa: F401
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import TEST_SECRET_KEY, pay_in_page
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.services import get_services
from webstore.subscriptions.processor import OutcomeKind, run_due


def failing(api: str, on: bool) -> None:
    answer = httpx.post(
        f"{api}/_test/tax/transactions_failing", data={"on": "1" if on else "0"}, auth=(TEST_SECRET_KEY, "")
    )
    answer.raise_for_status()


def latest(demo: DemoStore) -> PaymentRecord:
    (payment,) = PaymentRepository(demo.table).latest(ACCOUNT, 1)
    return payment


def tax_outcomes(at: datetime) -> list[OutcomeKind]:
    report = run_due(get_services(), at)
    return [o.kind for o in report.outcomes if o.kind in (OutcomeKind.TAX_RECORDED, OutcomeKind.FAILED)]


def test_a_failed_tax_transaction_is_retried_by_the_clock(
    stripe_store: DemoStore,  # noqa: F811
    registered: str,  # noqa: F811
    invoke: Invoke,
) -> None:
    brand(
        stripe_store,
        tax=Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.STRIPE_TAX, origin_country="DE"),
    )
    ident = new_basket(invoke, stripe_store)
    assert billing(invoke, ident, "FR", "FR").status == 303
    intent = page_intent(invoke, ident)
    assert pay_in_page(registered, intent) == "succeeded"
    failing(registered, True)
    try:
        back = invoke(
            get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
        )
        assert back.status == 303 and back.headers["location"].endswith("/receipt"), back.body  # it stands
        payment = latest(stripe_store)
        assert payment.tax is not None and payment.tax.stripe_calculation_id
        assert payment.tax.stripe_transaction_id is None
        owner = signed_in(Role.OWNER)
        page = owner.get(get_payment_page.handler, f"/payments/{payment.transaction_id}").body
        assert "transaction not recorded yet: the clock retries it" in page

        later = datetime.now(UTC) + timedelta(minutes=1)
        assert tax_outcomes(later) == [OutcomeKind.FAILED]  # Stripe still out: kept for the next run
        assert latest(stripe_store).tax.stripe_transaction_id is None  # type: ignore[union-attr]
    finally:
        failing(registered, False)
    assert tax_outcomes(later + timedelta(minutes=1)) == [OutcomeKind.TAX_RECORDED]
    made = latest(stripe_store).tax.stripe_transaction_id  # type: ignore[union-attr]
    assert made is not None and made.startswith("tax_")
    assert (
        f"transaction {made}"
        in owner.get(get_payment_page.handler, f"/payments/{payment.transaction_id}").body
    )
    assert tax_outcomes(later + timedelta(minutes=2)) == []  # done: the item is gone
