"""The hosted pages speak the shop's language (docs/shop.md, "The hosted pages"): a German
store's player sees the checkout and the receipt in German; the browser's Accept-Language and
the shop switcher's pick (`?lang=`, remembered in `webstore_lang`) come before the store's
language; the shop's checkout form carries the pick along."""

from __future__ import annotations

import re

from functions.shop import get_home, get_language, get_login, post_basket_package, post_checkout, post_login
from functions.storefront import get_auth_page, get_checkout_page, get_checkout_receipt
from tests.integration.storefront.support import create
from tests.integration.storefront.test_checkout_pages import basket, brand, checkout_page, pay
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.shop import ShopClient
from webstore.checkout.pages import SUBSCRIPTION_CONSENT


def test_a_german_stores_checkout_and_receipt_are_german(demo: DemoStore, invoke: Invoke) -> None:
    brand(demo, lang="de", terms_url="https://demo-craft.test/terms")
    ident = basket(demo, invoke, {"package_id": 1, "quantity": 1}, {"package_id": 10, "quantity": 2})
    page = checkout_page(invoke, ident)
    body = page.body
    assert '<html lang="de">' in body
    assert "<h1>Kasse</h1>" in body and "Du bezahlst als" in body and ">Deine Bestellung<" in body
    assert ">Zahlung<" in body and "E-Mail für deine Quittung" in body
    assert (
        "<dt>Verlängert sich zu</dt>" in body
        and "<strong>So kündigst du:</strong> Du kannst jederzeit" in body
    )
    assert "Jetzt bezahlen · " in body and "Mit der Zahlung akzeptierst du" in body
    assert re.findall(r'<th scope="row">(.*?)</th>', body) == ["Zwischensumme", "Zu zahlen gesamt"]
    assert "Pay now" not in body and "Your order" not in body and "Subtotal" not in body
    assert "<title>Kasse · Demo Craft</title>" in body

    assert pay(invoke, ident, page, email="steve@example.com", **{SUBSCRIPTION_CONSENT: "yes"}).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt").body
    assert '<html lang="de">' in receipt and "<title>Quittung · Demo Craft</title>" in receipt
    assert '<span class="paid" id="status">Bezahlt</span>' in receipt
    assert "Danke für deinen Einkauf" in receipt and "Bezahlt von" in receipt
    assert "Abonnement verwalten oder kündigen" in receipt and ">Bezahlt<" in receipt
    assert "Thank you" not in receipt and "Manage or cancel" not in receipt


def test_the_players_browser_and_pick_come_before_the_stores_language(
    demo: DemoStore, invoke: Invoke
) -> None:
    brand(demo, lang="de")
    ident = basket(demo, invoke, {"package_id": 10, "quantity": 1})
    french = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}", headers={"accept-language": "fr"})
    assert '<html lang="fr">' in french.body and "<h1>Paiement</h1>" in french.body
    english = invoke(
        get_checkout_page.handler, "GET", f"/checkout/{ident}", headers={"accept-language": "en"}
    )
    assert '<html lang="en">' in english.body and "<h1>Checkout</h1>" in english.body
    picked = invoke(
        get_checkout_page.handler,
        "GET",
        f"/checkout/{ident}",
        query={"lang": "es"},
        headers={"accept-language": "fr"},
    )
    assert '<html lang="es">' in picked.body and "<h1>Pago</h1>" in picked.body
    assert any(c.startswith("webstore_lang=es;") and "HttpOnly" in c for c in picked.cookies)
    # The pick is remembered for the pages after it (the receipt, the manage page).
    later = invoke(
        get_checkout_page.handler,
        "GET",
        f"/checkout/{ident}",
        headers={"cookie": "webstore_lang=es", "accept-language": "fr"},
    )
    assert '<html lang="es">' in later.body
    nonsense = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}", query={"lang": "xx<script>"})
    assert '<html lang="de">' in nonsense.body and not nonsense.cookies


def test_the_auth_page_and_a_problem_page_in_the_stores_language(demo: DemoStore, invoke: Invoke) -> None:
    brand(demo, lang="de")
    # No store to take the language from: the visitor's.
    missing = invoke(get_checkout_page.handler, "GET", "/checkout/nope", headers={"accept-language": "de"})
    assert missing.status == 404 and '<html lang="de">' in missing.body
    assert "Geh zurück zum Shop, von dem du kamst" in missing.body
    ident = create(
        demo, invoke, complete_url="http://localhost:3000/t", cancel_url="http://localhost:3000/b"
    )["ident"]
    auth = invoke(
        get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": "http://localhost:3000/b"}
    )
    assert auth.status == 200, auth.body
    assert (
        '<html lang="de">' in auth.body
        and "Gib deinen Benutzernamen ein, um zu Demo Craft weiterzugehen." in auth.body
    )
    assert '<label for="username">Benutzername</label>' in auth.body and ">Weiter</button>" in auth.body


def test_the_shops_checkout_form_carries_the_switchers_pick(demo: DemoStore) -> None:
    del demo
    player = ShopClient()
    player.get(get_home.handler, "/")
    player.get(get_language.handler, "/language?lang=pt-BR&next=/")
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    to_checkout = player.post(post_checkout.handler, "/checkout", {})
    assert to_checkout.status == 303 and to_checkout.headers["location"].endswith("?lang=pt-BR")
