"""The hosted checkout as a property (Hypothesis) over random baskets, coupons and gift cards,
with a random mishap after the charge: what is charged is what the basket showed (its total
less what gift cards pay), never negative, and every charge ends paying the recorded payment
or refunded."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from functions.storefront import (
    add_basket_package,
    apply_coupon,
    apply_giftcard,
    create_basket,
    get_checkout_page,
)
from tests.integration.storefront.test_checkout import attempt_key_of, basket_json, pay
from tests.integration.storefront.test_pay_faults import RecordingGateway
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.checkout import checkout
from webstore.payments import planning

PACKAGES = {
    10: {},
    11: {"variable_data": {"world": "survival"}},
    13: {"variable_data": {"note": "hi"}},
    20: {},
}

lines = st.lists(st.tuples(st.sampled_from(sorted(PACKAGES)), st.integers(1, 6)), min_size=1, max_size=4)
codes = st.lists(st.sampled_from(["WELCOME10", "SWORD1", "BIG5"]), max_size=3, unique=True)
mishaps = st.sampled_from(["none", "none", "fulfilment error"])


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=lines, coupon_codes=codes, giftcard=st.booleans(), mishap=mishaps)
def test_every_charge_is_the_basket_total_and_ends_paid_or_refunded(
    demo: DemoStore,
    invoke: Invoke,
    monkeypatch: pytest.MonkeyPatch,
    lines: list[tuple[int, int]],
    coupon_codes: list[str],
    giftcard: bool,
    mishap: str,
) -> None:
    books = RecordingGateway()
    monkeypatch.setattr(checkout, "gateway_for", lambda services, store: books)
    created = invoke(
        create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={"username": "Steve"}
    )
    ident = created.json()["data"]["ident"]
    base = f"/api/baskets/{ident}"
    for package_id, quantity in lines:
        body = {"package_id": package_id, "quantity": quantity, **PACKAGES[package_id]}
        assert invoke(add_basket_package.handler, "POST", f"{base}/packages", body=body).status == 200
    for code in coupon_codes:  # a coupon the basket does not qualify for is refused: fine
        invoke(apply_coupon.handler, "POST", f"{base}/coupons", body={"coupon_code": code})
    if giftcard:  # its balance drains over the examples; an empty card is refused
        invoke(
            apply_giftcard.handler, "POST", f"{base}/giftcards", body={"card_number": "GIFT-0000-0000-0001"}
        )
    shown = basket_json(invoke, demo, ident)
    due = Decimal(str(shown["total_price"]))
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    with monkeypatch.context() as patched:
        if mishap == "fulfilment error":
            patched.setattr(planning, "check_recordable", _fail)
        answer = pay(invoke, ident, attempt_key_of(page))
    assert answer.status in (303, 409), answer.body

    [(key, charged)] = books.charged.items()
    assert charged >= 0
    order = demo.table.get(keys.key(keys.account_pk(1), keys.order_sk(f"basket-{ident}")))
    if order is None:
        assert books.refunded == {key} and answer.status == 409
    else:
        assert books.refunded == set() and order["checkout_attempt"] == key
        payment = demo.table.get(keys.key(keys.account_pk(1), keys.payment_sk(int(order["payment_id"]))))
        assert payment is not None and Decimal(str(payment["amount"])) == charged
        paid_lines = sum((Decimal(str(line["price"])) for line in payment["lines"]), Decimal(0))
        assert paid_lines == Decimal(str(shown["total_price"]))  # the demo store adds no tax
    if not giftcard:
        assert charged == due
    else:
        assert charged <= due


def _fail(*_args: object) -> None:
    raise RuntimeError("injected after the charge")
