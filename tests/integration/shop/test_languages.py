"""The shop speaks the visitor's language (docs/shop.md, "Languages"), through the real handlers:
Accept-Language first, then the store's language, then English; `<html lang>` says which."""

from __future__ import annotations

import pytest

from functions.shop import get_basket, get_home, get_login
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from webstore.repo.store import StoreRepository
from webstore.services import get_services


def page(handler: object, path: str, accept_language: str | None = None) -> str:
    headers = {"accept-language": accept_language} if accept_language is not None else {}
    response = invoke(handler, "GET", path, headers=headers)
    assert response.status == 200
    return response.body


@pytest.mark.parametrize(
    ("header", "lang", "log_in", "basket"),
    [
        ("de-DE,de;q=0.9", "de", "Anmelden", "Warenkorb (0)"),
        ("fr-FR", "fr", "Se connecter", "Panier (0)"),
        ("es", "es", "Iniciar sesión", "Cesta (0)"),
        ("pt-BR,pt;q=0.9", "pt-BR", "Entrar", "Carrinho (0)"),
        ("en-US,en;q=0.9", "en", "Log in", "Basket (0)"),
    ],
)
def test_every_page_in_the_visitors_language(
    demo: DemoStore, header: str, lang: str, log_in: str, basket: str
) -> None:
    home = page(get_home.handler, "/", header)
    assert f'<html lang="{lang}">' in home and f">{log_in}</a>" in home and f">{basket}</a>" in home
    assert f"<h1>{log_in}</h1>" in page(get_login.handler, "/login", header)
    assert f'<html lang="{lang}">' in page(get_basket.handler, "/basket", header)


def test_without_a_language_the_shop_has_the_stores_language_then_english(demo: DemoStore) -> None:
    assert '<html lang="en">' in page(get_home.handler, "/", "ja")
    table = get_services().table
    store = StoreRepository(table).store(1)
    table.put(StoreRepository(table).store_item(store.model_copy(update={"lang": "de"})))
    german = page(get_home.handler, "/", "ja")
    assert '<html lang="de">' in german and ">Anmelden</a>" in german
    assert '<html lang="de">' in page(get_home.handler, "/")
    assert '<html lang="fr">' in page(get_home.handler, "/", "fr")  # the visitor's first


def test_the_texts_the_shops_code_passes_are_translated_too(demo: DemoStore) -> None:
    """Page titles, the sale banner, the basket's total rows, the error page and a refusal:
    texts of the shop's Python, in the page's language (`i18n.PYTHON_TEXTS`)."""
    from functions.shop import get_package, post_basket_package, post_login
    from tests.support.shop import ShopClient

    table = get_services().table
    store = StoreRepository(table).store(1)
    table.put(StoreRepository(table).store_item(store.model_copy(update={"lang": "de"})))
    player = ShopClient()
    home = player.get(get_home.handler, "/").body
    assert 'id="sale-banner">Crate week: 10 % Rabatt<' in home
    player.get(get_package.handler, "/package/10")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    basket = player.get(get_basket.handler, "/basket").body
    assert "<title>Warenkorb · Demo Craft</title>" in basket
    assert "Zwischensumme" in basket and "Zu zahlen" in basket and "Subtotal" not in basket
    missing = player.get(get_package.handler, "/package/999999")
    assert missing.status == 404
    assert "Nicht gefunden" in missing.body and "Dieses Paket gibt es in diesem Shop nicht" in missing.body
    refused = player.post(post_login.handler, "/login", {"username": ""})
    assert refused.status == 422 and "Gib deinen Benutzernamen ein" in refused.body
    assert "<title>Anmelden · Demo Craft</title>" in refused.body
