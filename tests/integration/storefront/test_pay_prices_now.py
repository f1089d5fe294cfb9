"""The hosted checkout charges what the store sells now, only orders it can record, within
each package's per-player limit (issue 10, items 1, 4, 5)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import create_coupon, delete_coupon, get_coupon, update_package
from functions.storefront import (
    add_basket_package,
    apply_coupon,
    apply_giftcard,
    create_basket,
    get_checkout_page,
    pay_checkout,
    remove_basket_package,
)
from tests.integration.operator.support import secret_headers
from tests.integration.storefront.test_checkout import FORM, attempt_key_of, basket_json, payments
from tests.integration.storefront.test_pay_faults import (
    RecordingGateway,
    assert_books_balance,
    recorded_payments,
)
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore import record_size
from webstore.checkout import checkout
from webstore.payments import planning


@pytest.fixture
def gateway(monkeypatch: pytest.MonkeyPatch, demo: DemoStore) -> RecordingGateway:
    books = RecordingGateway()
    monkeypatch.setattr(checkout, "gateway_for", lambda services, store: books)
    return books


def basket_with(invoke: Invoke, demo: DemoStore, *adds: dict[str, Any]) -> str:
    created = invoke(
        create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={"username": "Steve"}
    )
    ident: str = created.json()["data"]["ident"]
    for body in adds:
        added = invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)
        assert added.status == 200, added.body
    return ident


def submit(invoke: Invoke, ident: str, form: Response) -> Response:
    """Submit the form a page shows, as a browser would (the attempt key and the amount shown)."""
    shown = re.search(r'name=amount_due value="([^"]+)"', form.body)
    assert shown, form.body
    fields = {"attempt_key": attempt_key_of(form), "card_number": "4242", "amount_due": shown.group(1)}
    if "name=subscription_consent" in form.body:  # the player ticks the subscription's consent
        fields["subscription_consent"] = "yes"
    return invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(fields), headers=FORM
    )


def pay_now(invoke: Invoke, ident: str) -> Response:
    return submit(invoke, ident, invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))


def test_an_order_too_large_to_record_is_refused_at_add_to_basket(demo: DemoStore, invoke: Invoke) -> None:
    """1,000 Diamond Swords (two commands each) would make a payment record past the item limit."""
    ident = basket_with(invoke, demo)
    added = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 10, "quantity": 1000},
    )
    assert added.status == 422, added.body
    assert "quantity" in added.body and "fit" in added.body
    assert basket_json(invoke, demo, ident)["packages"] == []


def test_a_record_too_large_after_the_charge_is_refunded_not_kept(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The last line of defence: fulfilment measures the record and refuses; the charge goes back."""
    ident = basket_with(invoke, demo, {"package_id": 10, "quantity": 3})
    monkeypatch.setattr(record_size, "RECORD_LIMIT", 100)
    answer = pay_now(invoke, ident)
    assert answer.status == 409 and "refunded" in answer.body
    assert payments(invoke, demo) == []
    assert basket_json(invoke, demo, ident)["complete"] is False
    assert gateway.refunded == set(gateway.charged) and gateway.charged
    monkeypatch.setattr(record_size, "RECORD_LIMIT", 300_000)
    assert pay_now(invoke, ident).status == 303  # the basket is not locked
    assert_books_balance(gateway, demo)


def test_any_unexpected_fulfilment_error_refunds(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, monkeypatch: pytest.MonkeyPatch
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10})

    def broken(*_args: object) -> None:
        raise ValueError("not a domain error")

    monkeypatch.setattr(planning, "check_recordable", broken)
    answer = pay_now(invoke, ident)
    assert answer.status == 409 and "refunded" in answer.body
    assert payments(invoke, demo) == []
    assert_books_balance(gateway, demo)


def test_a_package_disabled_since_it_was_added_is_not_sold(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10}, {"package_id": 20})
    disabled = invoke(
        update_package.handler,
        "PUT",
        "/package/20",
        headers=secret_headers(demo.server_secret),
        body={"disabled": True},
    )
    assert disabled.status == 200, disabled.body
    answer = pay_now(invoke, ident)
    assert answer.status == 422
    assert "Legendary Crate Key is no longer for sale" in answer.body
    assert gateway.charged == {} and payments(invoke, demo) == []


def test_a_price_changed_since_it_was_added_is_charged_as_now(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10, "quantity": 2})
    invoke(
        update_package.handler,
        "PUT",
        "/package/10",
        headers=secret_headers(demo.server_secret),
        body={"price": 4},
    )
    went_up = pay_now(invoke, ident)  # the page showed 5.00: nothing more is charged unseen
    assert went_up.status == 409 and "now 8.00 USD" in went_up.body
    assert gateway.charged == {}
    assert submit(invoke, ident, went_up).status == 303  # the form now shows 8.00
    assert list(gateway.charged.values()) == [8]
    assert payments(invoke, demo)[0]["amount"] == "8.00"


def test_a_coupon_deleted_and_recreated_under_its_code_discounts_as_it_is_now(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10, "quantity": 2})  # 2 x 2.50
    applied = invoke(
        apply_coupon.handler, "POST", f"/api/baskets/{ident}/coupons", body={"coupon_code": "WELCOME10"}
    )
    assert applied.status == 200
    secret = secret_headers(demo.server_secret)
    old = invoke(get_coupon.handler, "GET", "/coupons/WELCOME10", headers=secret).json()["data"]
    assert invoke(delete_coupon.handler, "DELETE", f"/coupons/{old['id']}", headers=secret).status == 204
    created = invoke(
        create_coupon.handler,
        "POST",
        "/coupons",
        headers=secret,
        body={
            "code": "WELCOME10",
            "effective_on": "cart",
            "discount_type": "percentage",
            "discount_percentage": 50,
        },
    )
    assert created.status == 200, created.body
    assert pay_now(invoke, ident).status == 303
    assert [str(v) for v in gateway.charged.values()] == ["2.50"]


def test_a_deleted_coupon_stops_the_payment_before_any_charge(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10})
    invoke(apply_coupon.handler, "POST", f"/api/baskets/{ident}/coupons", body={"coupon_code": "WELCOME10"})
    secret = secret_headers(demo.server_secret)
    old = invoke(get_coupon.handler, "GET", "/coupons/WELCOME10", headers=secret).json()["data"]
    invoke(delete_coupon.handler, "DELETE", f"/coupons/{old['id']}", headers=secret)
    answer = pay_now(invoke, ident)
    assert answer.status == 422 and "WELCOME10 no longer exists" in answer.body
    assert gateway.charged == {}


def test_a_tier_upgrade_through_the_basket_costs_its_prorate_price(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    """Steve buys VIP (tier in Ranks), half a period later adds MVP: checkout charges what the
    storefront shows as MVP's `prorate_price`, not MVP's full 9.99."""
    from datetime import UTC, datetime, timedelta

    from functions.storefront import get_categories
    from webstore.services import get_services

    start = datetime(2026, 6, 1, 12, tzinfo=UTC)
    get_services().clock = lambda: start
    assert pay_now(invoke, basket_with(invoke, demo, {"package_id": 1})).status == 303
    [vip] = list(gateway.charged.values())
    assert vip == Decimal("4.99")

    later = start + timedelta(days=10)
    get_services().clock = lambda: later
    ident = basket_with(invoke, demo, {"package_id": 2})
    steve = basket_json(invoke, demo, ident)["username_id"]
    shown = invoke(
        get_categories.handler,
        "GET",
        f"/api/accounts/{demo.token}/categories",
        query={"usernameId": str(steve), "includePackages": "1"},
        headers=demo.basic_auth(),
    )
    ranks = next(c for c in shown.json()["data"] if c["id"] == 1)
    prorated = Decimal(str(next(p for p in ranks["packages"] if p["id"] == 2)["prorate_price"]))
    assert Decimal(0) < prorated < Decimal("5.00")

    assert pay_now(invoke, ident).status == 303
    assert list(gateway.charged.values())[-1] == prorated
    assert payments(invoke, demo)[0]["amount"] == str(prorated)


def test_a_refusal_the_claims_reads_show_releases_the_claim(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    """The basket's content is read beside the claim: when it cannot be sold as it is now, the
    claim is released before any charge, so the player can correct the basket and pay at once
    (no wait for the claim to time out)."""
    ident = basket_with(invoke, demo, {"package_id": 10}, {"package_id": 20})
    secret = secret_headers(demo.server_secret)
    invoke(update_package.handler, "PUT", "/package/20", headers=secret, body={"disabled": True})
    assert pay_now(invoke, ident).status == 422
    assert basket_json(invoke, demo, ident)["complete"] is False
    removed = invoke(
        remove_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages/remove",
        body={"package_id": 20},
    )
    assert removed.status == 200, removed.body  # not "being paid": the claim was released
    assert pay_now(invoke, ident).status == 303
    assert gateway.charged and len(payments(invoke, demo)) == 1
    assert_books_balance(gateway, demo)


def test_prices_that_went_up_since_the_page_release_the_claim(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 10})
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    secret = secret_headers(demo.server_secret)
    raised = invoke(update_package.handler, "PUT", "/package/10", headers=secret, body={"price": 99})
    assert raised.status == 200, raised.body
    again = submit(invoke, ident, page)
    assert again.status == 409 and "prices went up" in again.body
    assert gateway.charged == {}
    assert submit(invoke, ident, again).status == 303  # the form shown again pays at once
    assert list(gateway.charged.values()) == [Decimal("99")]


@pytest.mark.parametrize("amount_due", [None, "", "five", "5.00; DROP"])
def test_a_hand_built_pay_without_the_amount_shown_is_refused_not_charged(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway, amount_due: str | None
) -> None:
    """The form carries the amount due it showed; a post without it (or with something else
    there) is a 422 naming `amount_due`: nothing claimed, nothing charged."""
    ident = basket_with(invoke, demo, {"package_id": 10, "quantity": 2})
    form = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    fields = {"attempt_key": attempt_key_of(form), "card_number": "4242"}
    if amount_due is not None:
        fields["amount_due"] = amount_due
    answer = invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(fields), headers=FORM
    )
    assert answer.status == 422, answer.body
    assert "amount_due" in answer.body
    assert gateway.charged == {} and payments(invoke, demo) == []
    assert (demo.table.get({"PK": f"BASKET#{ident}", "SK": "BASKET"}) or {}).get("checkout_attempt") is None
    assert submit(invoke, ident, form).status == 303  # the page's own form pays


def test_a_basket_that_lost_a_gift_card_race_pays_on_the_next_submit(
    demo: DemoStore, invoke: Invoke, gateway: RecordingGateway
) -> None:
    """Two baskets hold the same card (10.00), each covering its whole 10.00 total; the first
    pays and spends it. The second is refused before anything is charged, with the card named
    and the new amount due, and the form it shows then pays (not a 409 on every retry)."""
    first = basket_with(invoke, demo, {"package_id": 10, "quantity": 4})
    second = basket_with(invoke, demo, {"package_id": 10, "quantity": 4})
    for ident in (first, second):
        applied = invoke(
            apply_giftcard.handler,
            "POST",
            f"/api/baskets/{ident}/giftcards",
            body={"card_number": "GIFT-0000-0000-0001"},
        )
        assert applied.status == 200, applied.body
    second_form = invoke(get_checkout_page.handler, "GET", f"/checkout/{second}")
    assert 'name=amount_due value="0.00"' in second_form.body
    assert pay_now(invoke, first).status == 303  # the card is spent

    lost = submit(invoke, second, second_form)
    assert lost.status == 409, lost.body
    assert "Gift card ••••0001 now covers less" in lost.body and "10.00 USD" in lost.body
    assert 'name=amount_due value="10.00"' in lost.body
    assert submit(invoke, second, lost).status == 303
    assert basket_json(invoke, demo, second)["complete"] is True
    assert sorted(p["amount"] for p in payments(invoke, demo)) == ["0.00", "10.00"]
    paid_by = {p["checkout_attempt"] for p in recorded_payments(demo)}  # charges = payments + refunds
    assert set(gateway.charged) == paid_by | gateway.refunded and not paid_by & gateway.refunded
