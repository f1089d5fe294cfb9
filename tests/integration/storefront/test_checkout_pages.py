"""The checkout and receipt pages through their Lambda handlers: the store's branding, the lines
and rows that add up, subscriptions, the receipt address, the links, and player-typed values
escaped (stored on the basket, shown later: stored XSS)."""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode

from functions.operator import get_payments
from functions.storefront import (
    apply_coupon,
    apply_creator_code,
    apply_giftcard,
    get_checkout_page,
    get_checkout_receipt,
    pay_checkout,
)
from tests.integration.storefront.support import ACCOUNT, add, create
from tests.integration.storefront.test_checkout import FORM, attempt_key_of
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from webstore.catalog import Tax, TaxMode
from webstore.checkout.pages import SUBSCRIPTION_CONSENT
from webstore.html.player import stylesheet_hash
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository

ROW = re.compile(r'<tr class="([^"]+)"><th scope="row">(.*?)</th><td data-amount="([^"]+)">([^<]*)</td>')
BRAND = {
    "logo": "https://cdn.demo-craft.test/logo.png",
    "primary_color": "#2d1b69",
    "accent_color": "#f5a524",
    "terms_url": "https://demo-craft.test/terms",
    "refund_policy_url": "https://demo-craft.test/refunds",
}
XSS = '<script>alert("owned")</script><img src=x onerror=alert(1)>'


def brand(demo: DemoStore, **fields: Any) -> None:
    """The owner re-imports the catalog with these store settings."""
    repository = StoreRepository(demo.table)
    store = repository.store(ACCOUNT).model_copy(update=fields)
    demo.table.put(repository.store_item(store))


def basket(demo: DemoStore, invoke: Invoke, *packages: dict[str, Any], username: str = "Steve") -> str:
    body = {
        "username": username,
        "complete_url": "http://localhost:3000/thanks",
        "cancel_url": "http://localhost:3000/b",
    }
    ident: str = create(demo, invoke, **body)["ident"]
    for package in packages:
        added = add(invoke, ident, **package)
        assert added.status == 200, added.body
    return ident


def apply(invoke: Invoke, ident: str, handler: Any, kind: str, field: str, value: str) -> None:
    applied = invoke(handler, "POST", f"/api/baskets/{ident}/{kind}", body={field: value})
    assert applied.status == 200, applied.body


def everything(demo: DemoStore, invoke: Invoke) -> str:
    """A sale (Crate week, 10% off crates), two coupons, a creator code, a custom field, a gift card."""
    ident = basket(
        demo,
        invoke,
        {"package_id": 10, "quantity": 2},
        {"package_id": 20, "quantity": 3},
        {"package_id": 13, "quantity": 1, "variable_data": {"note": XSS}},
    )
    apply(invoke, ident, apply_coupon.handler, "coupons", "coupon_code", "SWORD1")
    apply(invoke, ident, apply_coupon.handler, "coupons", "coupon_code", "WELCOME10")
    apply(invoke, ident, apply_creator_code.handler, "creator-codes", "creator_code", "STEVE")
    apply(invoke, ident, apply_giftcard.handler, "giftcards", "card_number", "GIFT-0000-0000-0001")
    return ident


def rows(page: Response) -> list[tuple[str, str, Decimal]]:
    """(class, label without notes, amount) of each totals row, as shown."""
    found = [
        (kind, re.sub(r"<[^>]+>.*", "", label).strip(), Decimal(value))
        for kind, label, value, _ in ROW.findall(page.body)
    ]
    assert found, page.body
    return found


def checkout_page(invoke: Invoke, ident: str) -> Response:
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200, page.body
    return page


def pay(invoke: Invoke, ident: str, page: Response, **fields: str) -> Response:
    shown = re.search(r'name=amount_due value="([^"]+)"', page.body)
    assert shown
    form = {
        "attempt_key": attempt_key_of(page),
        "card_number": "4242",
        "amount_due": shown.group(1),
        **fields,
    }
    return invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(form), headers=FORM
    )


def test_the_checkout_shows_the_store_each_line_and_rows_that_add_up(demo: DemoStore, invoke: Invoke) -> None:
    brand(demo, **BRAND, tax=Tax(mode=TaxMode.EXCLUSIVE, rate=Decimal(8)))
    ident = everything(demo, invoke)
    page = checkout_page(invoke, ident)
    body = page.body

    assert '<strong id="store-name">Demo Craft</strong>' in body
    assert '<img src="https://cdn.demo-craft.test/logo.png" alt=""' in body
    assert "<style>:root{--brand:#2d1b69;--on-brand:#ffffff;--link:#2d1b69;--accent:#2d1b69}</style>" in body
    policy = page.headers["content-security-policy"]
    assert f"style-src 'sha256-{stylesheet_hash()}' 'sha256-" in policy and "img-src https: http:;" in policy
    assert "script-src" not in policy and "<script>" not in body.replace(XSS, "")

    assert '<img class="thumb" src="https://example.invalid/sword.png"' in body  # the package's image
    assert '<strong>Diamond Sword</strong><span class="meta">2 &times; $2.50 USD</span>' in body
    assert '<strong>Legendary Crate Key</strong><span class="meta">3 &times; $1.99 USD</span>' in body
    assert [(kind, label, amount) for kind, label, amount in rows(page)] == [
        ("subtotal", "Subtotal", Decimal("15.97")),
        ("off", "Sale: Crate week", Decimal("-0.60")),
        ("off", "Coupon SWORD1", Decimal("-2.00")),
        ("off", "Coupon WELCOME10", Decimal("-1.33")),
        ("tax", "Sales tax", Decimal("0.96")),
        ("grand", "Total", Decimal("13.00")),
        ("off", "Gift card ••••0001", Decimal("-10.00")),
        ("due", "Amount due", Decimal("3.00")),
    ]
    assert 'name=amount_due value="3.00"' in body and "Pay now · $3.00 USD" in body
    assert "Creator code <strong>STEVE</strong>" in body
    assert 'href="https://demo-craft.test/terms"' in body and 'href="https://demo-craft.test/refunds"' in body
    assert '<label for="email">Email for your receipt</label>' in body and 'name="email" type="email"' in body
    assert "<label for=card>Card number</label>" in body  # the sandbox's payment method, in its slot
    assert 'id="payment-method"' in body and SUBSCRIPTION_CONSENT not in body


def test_shown_rows_add_up_to_the_amount_charged(demo: DemoStore, invoke: Invoke) -> None:
    ident = everything(demo, invoke)
    shown = rows(checkout_page(invoke, ident))
    amounts = {label: amount for _, label, amount in shown}
    before_cards = [
        amount for kind, label, amount in shown if kind in ("subtotal", "off", "tax") and "Gift" not in label
    ]
    assert sum(before_cards, Decimal(0)) == amounts["Total"]
    assert amounts["Total"] + amounts["Gift card ••••0001"] == amounts["Amount due"]
    stored = BasketRepository(demo.table).get(ident)
    assert amounts["Amount due"] == stored.total_price - stored.giftcard_amount


def test_player_typed_values_are_escaped_on_the_checkout_and_the_receipt(
    demo: DemoStore, invoke: Invoke
) -> None:
    ident = everything(demo, invoke)
    page = checkout_page(invoke, ident)
    escaped = "note: &lt;script&gt;alert(&#34;owned&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;"
    assert escaped in page.body and "<script" not in page.body and "onerror=alert(1)>" not in page.body
    assert pay(invoke, ident, page).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert escaped in receipt.body and "<script" not in receipt.body


def test_the_receipt_says_paid_with_the_transaction_and_the_checkouts_rows(
    demo: DemoStore, invoke: Invoke
) -> None:
    brand(demo, **BRAND)
    ident = everything(demo, invoke)
    page = checkout_page(invoke, ident)
    assert pay(invoke, ident, page, email="steve@example.com").status == 303

    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200, receipt.body
    [payment] = invoke(
        get_payments.handler, "GET", "/payments", headers={"X-Tebex-Secret": demo.server_secret}
    ).json()
    body = receipt.body
    assert '<span class="paid" id="status">Paid</span>' in body
    transaction_id = BasketRepository(demo.table).get(ident).transaction_id
    assert transaction_id and payment["txn_id"] == transaction_id
    assert f"<code id=txn>{transaction_id}</code>" in body
    assert '<strong id="store-name">Demo Craft</strong>' in body and "cdn.demo-craft.test/logo.png" in body
    paid = [(label if label != "Amount paid" else "Amount due", amount) for _, label, amount in rows(receipt)]
    assert paid == [(label, amount) for _, label, amount in rows(page)]
    assert '<a id=continue href="http://localhost:3000/thanks">Return to the shop</a>' in body
    assert '<a id=shop href="http://127.0.0.1:8083">Visit Demo Craft</a>' in body
    assert 'receipt to <span id="email">steve@example.com</span>' in body
    assert receipt.headers["content-security-policy"].count("'sha256-") == 2  # the frame and the theme


def test_the_email_typed_on_the_form_goes_on_the_basket_and_the_payment(
    demo: DemoStore, invoke: Invoke
) -> None:
    ident = basket(demo, invoke, {"package_id": 10, "quantity": 1})
    page = checkout_page(invoke, ident)
    refused = pay(invoke, ident, page, email='not an "address"')
    assert refused.status == 422
    assert 'role="alert" id="error">email is not an email address<' in refused.body
    assert 'value="not an &#34;address&#34;"' in refused.body  # shown again, to be corrected
    assert 'aria-describedby="email-help error" aria-invalid="true"' in refused.body
    stored = BasketRepository(demo.table).get(ident)
    assert stored.checkout_attempt is None and stored.email is None  # nothing claimed, stored or charged

    too_long = pay(invoke, ident, refused, email="a@" + "b" * 250 + ".com")
    assert too_long.status == 422 and "email is longer than 254 characters" in too_long.body

    assert pay(invoke, ident, refused, email=" alex@example.com ").status == 303
    assert BasketRepository(demo.table).get(ident).email == "alex@example.com"
    [payment] = invoke(
        get_payments.handler, "GET", "/payments", headers={"X-Tebex-Secret": demo.server_secret}
    ).json()
    assert payment["email"] == "alex@example.com"


def test_a_blank_email_keeps_the_one_the_shop_gave(demo: DemoStore, invoke: Invoke) -> None:
    ident = create(demo, invoke, username="Steve", email="shop@example.com")["ident"]
    add(invoke, ident, package_id=10, quantity=1)
    page = checkout_page(invoke, ident)
    assert 'name="email" type="email" value="shop@example.com"' in page.body
    assert pay(invoke, ident, page, email="").status == 303
    assert BasketRepository(demo.table).get(ident).email == "shop@example.com"


def test_a_subscription_shows_its_price_period_renewal_how_to_cancel_and_the_consent(
    demo: DemoStore, invoke: Invoke
) -> None:
    ident = basket(demo, invoke, {"package_id": 1, "quantity": 1})
    body = checkout_page(invoke, ident).body
    assert '<h3 id="sub-title">Subscription</h3>' in body
    assert "<dt>Package</dt><dd>VIP</dd><dt>Renews at</dt><dd>$4.99 USD every month</dd>" in body
    assert re.search(r"<dt>Next renewal</dt><dd>\d{1,2} [A-Z][a-z]+ \d{4}</dd>", body)
    assert "<strong>How to cancel:</strong> Cancel any time" in body
    field = SUBSCRIPTION_CONSENT
    consent = f"<input type=checkbox id=consent name={field} value=yes required>"
    agree = "I agree that Demo Craft charges the payment method I use now for VIP: $4.99 USD every month"
    assert f'<label class="consent">{consent}<span>{agree}, until I cancel.</span></label>' in body
    assert "Subscription, renews every month" in body
