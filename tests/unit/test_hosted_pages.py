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
from webstore.catalog import Store
from webstore.checkout import pages as checkout_pages
from webstore.errors import Conflict, NotFound
from webstore.storefront import pages
from webstore.storefront.auth_page import form_page
from webstore.storefront.basket_auth import AuthPrompt

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def store() -> Store:
    return Store(
        id=1, name="Demo <Craft>", created_at=NOW, public_token="t", checkout_key_hash="x", lang="de"
    )


def basket() -> Basket:
    line = BasketLine(package_id=1, category_id=1, ident="pkg_1_1", name="<Sword>", line_price=Decimal("2.5"))
    return Basket(
        ident="1-" + "a" * 32, account_id=1, currency="USD", created_at=NOW, updated_at=NOW, lines=[line]
    )


def style_hashes(html: str) -> list[str]:
    return [
        base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()
        for s in re.findall(r"<style>(.*?)</style>", html, re.S)
    ]


def test_every_hosted_page_is_the_one_frame_whose_style_its_policy_allows() -> None:
    rendered = [
        form_page(AuthPrompt(store(), basket(), "https://shop.test/back")),
        checkout_pages.checkout_page(basket(), pay_url="https://x.test/pay", attempt_key="k" * 16),
        checkout_pages.receipt_page(basket(), "tbx-1-00000000"),
        checkout_pages.message_page("Checkout", "Your basket is empty."),
        pages.problem_page("Cannot log in", "Basket not found"),
    ]
    for html in rendered:
        assert html.startswith("<!doctype html>") and '<meta name="referrer" content="no-referrer">' in html
        assert style_hashes(html) == [pages.STYLE_HASH]
        assert "style=" not in html and "<script" not in html
    for policy in (checkout_pages.CSP, pages.content_security_policy("https://shop.test/back")):
        assert f"style-src 'sha256-{pages.STYLE_HASH}'" in policy and "unsafe-inline" not in policy


def test_values_are_escaped_and_the_store_language_is_kept() -> None:
    html = form_page(AuthPrompt(store(), basket(), 'https://shop.test/?a="><b>'), username="<i>", error="<u>")
    assert "Demo &lt;Craft&gt;" in html and "&quot;&gt;&lt;b&gt;" in html
    assert "<i>" not in html and "<u>" not in html and '<html lang="de">' in html
    assert "&lt;Sword&gt;" in checkout_pages.summary(basket())


def test_form_action_allows_the_return_origin_only() -> None:
    policy = pages.content_security_policy("https://Shop.test:8443/back?x=1")
    assert "form-action 'self' https://shop.test:8443;" in policy
    assert "form-action 'self';" in pages.content_security_policy()
    assert "form-action 'self' http: https:;" in checkout_pages.CSP


def test_a_domain_error_is_the_problem_page_with_the_routes_policy() -> None:
    def refuse() -> pages.PageResult:
        raise NotFound("Basket <b> not found")

    response = render(refuse, checkout_pages.CSP)
    body = bytes(response.body).decode()
    assert response.status_code == 404 and response.headers["content-type"].startswith("text/html")
    assert response.headers["content-security-policy"] == checkout_pages.CSP
    assert response.headers["cache-control"] == "no-store" and response.headers["x-frame-options"] == "DENY"
    assert 'role="alert">Basket &lt;b&gt; not found<' in body and "<h1>Not found</h1>" in body

    def conflict() -> pages.PageResult:
        raise Conflict("Paid already")

    titled = render(conflict, problem_title="Cannot log in")
    assert titled.status_code == 409 and "<h1>Cannot log in</h1>" in bytes(titled.body).decode()
    assert "form-action 'self';" in titled.headers["content-security-policy"]


def test_a_result_brings_its_own_policy_and_redirects_are_not_stored() -> None:
    own = pages.content_security_policy("https://shop.test/")
    response = render(lambda: pages.PageResult(html="<p>x</p>", csp=own), checkout_pages.CSP)
    assert response.headers["content-security-policy"] == own
    moved = render(lambda: pages.PageResult(redirect="https://shop.test/thanks"))
    assert moved.status_code == 303 and moved.headers["location"] == "https://shop.test/thanks"
    assert moved.headers["cache-control"] == "no-store" and moved.headers["referrer-policy"] == "no-referrer"


def test_a_subscription_checkout_asks_consent_with_a_required_box() -> None:
    terms = ["<VIP>: $4.99 USD every month"]
    html = checkout_pages.checkout_page(
        basket(), pay_url="https://x.test/pay", attempt_key="k" * 16, subscription_terms=terms
    )
    assert "&lt;VIP&gt;: $4.99 USD every month" in html and "<VIP>" not in html
    assert re.search(r"<input type=checkbox id=consent name=subscription_consent value=yes required>", html)
    assert "Cancel any time from the link on your receipt" in html
    plain = checkout_pages.checkout_page(basket(), pay_url="https://x.test/pay", attempt_key="k" * 16)
    assert "subscription_consent" not in plain
