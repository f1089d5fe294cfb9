"""The hosted pages' one renderer and one error path: auth and checkout pages share the frame,
the stylesheet its policy allows by hash, escaping, and the problem page for domain errors."""

from __future__ import annotations

import base64
import hashlib
import re
from datetime import UTC, datetime
from decimal import Decimal

from functions.pages import render
from webstore.basket import Basket, BasketLine
from webstore.catalog import PackageType, Store, Tax, TaxMode
from webstore.checkout import pages as checkout_pages
from webstore.checkout import stripe_page
from webstore.checkout.summary import order_summary
from webstore.errors import Conflict, NotFound
from webstore.html import PageResult
from webstore.html.player import content_security_policy, problem_page, style_hash, stylesheet_hash
from webstore.storefront.auth_page import form_page
from webstore.storefront.basket_auth import AuthPrompt
from webstore.storefront.theme import in_brand_of

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def store() -> Store:
    return Store(
        id=1, name="Demo <Craft>", created_at=NOW, public_token="t", checkout_key_hash="x", lang="de"
    )


def basket() -> Basket:
    line = BasketLine(package_id=1, category_id=1, ident="pkg_1_1", name="<Sword>", base_price=Decimal("2.5"))
    return Basket(
        ident="1-" + "a" * 32, account_id=1, currency="USD", created_at=NOW, updated_at=NOW, lines=[line]
    )


def style_hashes(html: str) -> list[str]:
    return [
        base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
        for s in re.findall(r"<style>(.*?)</style>", html, re.S)
    ]


def checkout_view(s: Store) -> checkout_pages.CheckoutView:
    return checkout_pages.CheckoutView(
        store=s,
        summary=order_summary(basket(), s, NOW),
        pay_url="https://x.test/pay",
        attempt_key="k" * 16,
    )


def receipt_view(s: Store) -> checkout_pages.ReceiptView:
    return checkout_pages.ReceiptView(
        store=s, summary=order_summary(basket(), s, NOW), transaction_id="tbx-1-0"
    )


def test_every_hosted_page_is_the_one_frame_whose_style_its_policy_allows() -> None:
    rendered = [
        form_page(AuthPrompt(store(), basket(), "https://shop.test/back")),
        checkout_pages.checkout_page(checkout_view(store())),
        checkout_pages.receipt_page(receipt_view(store())),
        checkout_pages.message_page("Checkout", "Your basket is empty."),
        problem_page("Cannot log in", "Basket not found"),
    ]
    for html in rendered:
        assert html.startswith("<!doctype html>") and '<meta name="referrer" content="no-referrer">' in html
        assert style_hashes(html) == [stylesheet_hash()]
        assert "style=" not in html and "<script" not in html
    for policy in (checkout_pages.policy(), content_security_policy("https://shop.test/back")):
        assert f"style-src 'sha256-{stylesheet_hash()}'" in policy and "unsafe-inline" not in policy


def test_a_branded_page_brings_the_policy_that_allows_its_theme_and_images() -> None:
    branded = store().model_copy(update={"primary_color": "#2D1B69", "logo": "https://img.test/logo.png"})
    for page in (
        checkout_pages.checkout_page(checkout_view(branded)),
        checkout_pages.receipt_page(receipt_view(branded)),
    ):
        [frame, theme] = style_hashes(page)
        assert frame == stylesheet_hash() and ":root{--brand:#2d1b69;--on-brand:#ffffff" in page
        result = PageResult(402, page)
        assert result.csp is not None and result.csp == page.policy
        assert f"style-src 'sha256-{frame}' 'sha256-{theme}';" in result.csp
        assert "img-src https: http:;" in result.csp and "script-src" not in result.csp
        assert '<img src="https://img.test/logo.png" alt=""' in page
    own = content_security_policy("https://shop.test/")
    assert PageResult(html=checkout_pages.checkout_page(checkout_view(branded)), csp=own).csp == own


def test_an_unstyled_store_adds_no_stylesheet_and_no_logo_of_another_scheme() -> None:
    plain = store().model_copy(update={"logo": "javascript:alert(1)"})
    page = checkout_pages.checkout_page(checkout_view(plain))
    assert style_hashes(page) == [stylesheet_hash()] and "javascript:" not in page and "<img" not in page


def test_values_are_escaped_and_the_store_language_is_kept() -> None:
    html = form_page(AuthPrompt(store(), basket(), 'https://shop.test/?a="><b>'), username="<i>", error="<u>")
    assert "Demo &lt;Craft&gt;" in html and "&#34;&gt;&lt;b&gt;" in html
    assert "<i>" not in html and "<u>" not in html and '<html lang="de">' in html
    assert "&lt;Sword&gt;" in checkout_pages.checkout_page(checkout_view(store()))


def test_form_action_allows_the_return_origin_only() -> None:
    policy = content_security_policy("https://Shop.test:8443/back?x=1")
    assert "form-action 'self' https://shop.test:8443;" in policy
    assert "form-action 'self';" in content_security_policy()
    assert "form-action 'self' http: https:;" in checkout_pages.policy()


def test_a_domain_error_is_the_problem_page_with_the_routes_policy() -> None:
    def refuse() -> PageResult:
        raise NotFound("Basket <b> not found")

    response = render(refuse, checkout_pages.policy())
    body = bytes(response.body).decode()
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == checkout_pages.policy()
    assert response.headers["cache-control"] == "no-store" and response.headers["x-frame-options"] == "DENY"
    assert 'role="alert">Basket &lt;b&gt; not found<' in body and "<h1>Not found</h1>" in body

    def conflict() -> PageResult:
        raise Conflict("Paid already")

    titled = render(conflict, problem_title="Cannot log in")
    assert titled.status_code == 409 and "<h1>Cannot log in</h1>" in bytes(titled.body).decode()
    assert "form-action 'self';" in titled.headers["content-security-policy"]


def test_a_result_brings_its_own_policy_and_redirects_are_not_stored() -> None:
    own = content_security_policy("https://shop.test/")
    response = render(lambda: PageResult(html="<p>x</p>", csp=own), checkout_pages.policy())
    assert response.headers["content-security-policy"] == own
    moved = render(lambda: PageResult(redirect="https://shop.test/thanks"))
    assert moved.status_code == 303 and moved.headers["location"] == "https://shop.test/thanks"
    assert moved.headers["cache-control"] == "no-store" and moved.headers["referrer-policy"] == "no-referrer"


def test_a_processor_fills_the_payment_slot_and_keeps_the_rest_of_the_form() -> None:
    method = stripe_page.payment_method(
        publishable_key="pk_test",
        client_secret='cs"><b>',
        return_url="https://x.test/return",
        email="",
        js_url="https://js.stripe.test/v3",
    )
    s = store().model_copy(update={"primary_color": "#2d1b69"})
    page = checkout_pages.checkout_page(checkout_view(s), payment_method=method)
    assert '<form id=stripe-payment method=post action="#" data-publishable-key="pk_test"' in page
    assert 'data-client-secret="cs&#34;&gt;&lt;b&gt;"' in page
    assert "<div id=payment-element></div>" in page and "name=card_number" not in page
    assert 'name="email"' in page and 'id="pay" type="submit"' in page
    assert page.endswith("</main>\n</body>\n</html>\n") and '<script src="https://js.stripe.test/v3">' in page
    script = re.findall(r"<script>(.*?)</script>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(script[0].encode()).digest()).decode()
    assert page.policy is not None and page.policy.endswith(
        f"frame-ancestors 'none'; script-src https://js.stripe.test 'sha256-{digest}'; "
        "frame-src https://js.stripe.com https://hooks.stripe.com https://js.stripe.test; "
        "connect-src https://api.stripe.com https://js.stripe.test"
    )
    assert (
        "sha256-" + style_hash(":root{--brand:#2d1b69;--on-brand:#ffffff;--link:#2d1b69;--accent:#2d1b69}")
        in page.policy
    )
    sandbox = checkout_pages.checkout_page(checkout_view(s))
    assert (
        '<form method=post action="https://x.test/pay" id="pay-form">' in sandbox
        and "name=card_number" in sandbox
    )


def test_the_receipt_links_the_subscriptions_page_when_it_has_one() -> None:
    line = BasketLine(
        package_id=1,
        category_id=1,
        ident="pkg_1_1",
        name="VIP",
        base_price=Decimal("4.99"),
        type=PackageType.SUBSCRIPTION,
        expiry_length=1,
    )
    paid = Basket(
        ident="1-" + "b" * 32, account_id=1, currency="USD", created_at=NOW, updated_at=NOW, lines=[line]
    )
    view = checkout_pages.ReceiptView(
        store=store(),
        summary=order_summary(paid, store(), NOW),
        transaction_id="tbx-1-0",
        manage_url='https://shop.test/subscriptions/tok?a="b"',
    )
    page = checkout_pages.receipt_page(view)
    href = "https://shop.test/subscriptions/tok?a=&#34;b&#34;"
    # The store is German: so is its receipt.
    assert f'<a id=manage href="{href}">Abonnement verwalten oder kündigen</a>' in page
    assert "<dt>Nächste Verlängerung</dt><dd>1. Juli 2026</dd>" in page and "auf dieser Quittung" in page
    without = checkout_pages.receipt_page(receipt_view(store()))
    assert "id=manage" not in without and "Your subscription" not in without


def test_inclusive_tax_is_a_note_under_the_rows() -> None:
    taxed = store().model_copy(update={"tax": Tax(mode=TaxMode.INCLUSIVE, rate=Decimal(20))})
    priced = basket()
    priced.lines[0].base_price = Decimal("12.00")
    priced.reprice(taxed, NOW)
    view = checkout_pages.CheckoutView(
        store=taxed, summary=order_summary(priced, taxed, NOW), pay_url="https://x.test/pay", attempt_key="k"
    )
    html = checkout_pages.checkout_page(view)
    assert '<p class="note">Prices include $2.00 USD sales tax (20%).</p>' in html
    assert "Sales tax</th>" not in html and 'data-amount="12.00">$12.00 USD</td></tr></tbody>' in html


def test_a_refusal_after_the_store_was_read_is_in_its_brand_with_a_way_back() -> None:
    branded = store().model_copy(
        update={
            "webstore_url": "https://shop.test/",
            "primary_color": "#2d1b69",
            "logo": "https://img.test/l.png",
        }
    )

    def refuse() -> PageResult:
        in_brand_of(branded)
        raise Conflict("This basket has already been paid for")

    response = render(refuse, problem_title="Cannot log in")
    body = bytes(response.body).decode()
    assert response.status_code == 409 and '<strong id="store-name">Demo &lt;Craft&gt;</strong>' in body
    assert '<a id="back-to-store" href="https://shop.test/">Zurück zu Demo &lt;Craft&gt;</a>' in body
    policy = response.headers["content-security-policy"]
    assert (
        all(f"'sha256-{digest}'" in policy for digest in style_hashes(body)) and len(style_hashes(body)) == 2
    )
    assert "img-src https: http:" in policy and '<html lang="de">' in body

    def not_found() -> PageResult:
        raise NotFound("Basket not found")

    plain = bytes(render(not_found).body).decode()  # the next request knows no store
    assert "store-name" not in plain and 'id="way-back"' in plain
