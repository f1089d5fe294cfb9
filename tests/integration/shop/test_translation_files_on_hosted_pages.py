"""The owner's translation files (docs/shop.md, "Translation files") on the storefront's hosted
pages, through the real handlers: a German file saved in the panel rewords the auth page, the
checkout, the receipt, the manage page, "Find my subscriptions" and a problem page of a German
store, escaped (a `<script>` prints as text); each page reads it in the round trips it had
without it; a store without files shows the built-in German."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import pytest

from functions.storefront import (
    get_auth_page,
    get_checkout_page,
    get_checkout_receipt,
    get_find_subscriptions_page,
    get_subscription_page,
)
from tests.integration.shop.test_look_on_hosted_pages import RETURN, basket_with_a_sword
from tests.integration.shop.test_translation_files import save
from tests.integration.storefront.test_checkout_pages import brand, pay
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.panel import PanelClient, signed_in
from tests.support.round_trips import CallCounter
from webstore.admin.roles import Role
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.services import get_services
from webstore.subscriptions import manage_links

ATTACK = "<script>alert(1)</script>"
GERMAN = {
    "Username": "Spielername",  # the auth page
    "Continue": "Weiter zum Bezahlen",
    "Checkout": "Zur Kasse",  # the checkout's title
    "Pay now · %(amount)s": "Jetzt zahlen: %(amount)s " + ATTACK,
    "Receipt": "Beleg",  # the receipt's title
    "Thank you for your purchase": "Vielen Dank, Held " + ATTACK,
    "Your subscription at %(store)s": "Dein Abo bei %(store)s",  # the manage page
    "E-mail me a link": "Link schicken",  # "Find my subscriptions"
    "Back to %(store)s": ATTACK + " Zurück zu %(store)s",  # every page's way back
}


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    brand(demo, lang="de")
    return signed_in(Role.OWNER)


@pytest.fixture
def counter(demo: DemoStore) -> Iterator[CallCounter]:
    found = CallCounter()
    found.count_parallel_reads()
    client = get_services().table.client
    found.hook(client)
    yield found
    found.unhook(client)
    found.stop_counting_parallel_reads()


def words_saved(owner: PanelClient) -> None:
    assert save(owner, json.dumps(GERMAN, ensure_ascii=False, indent=2)).status == 303


def escaped(page: Response) -> None:
    body = page.body
    assert ATTACK not in body and "&lt;script&gt;alert(1)&lt;/script&gt;" in body


def manage_path(bought_reference: str) -> str:
    return urlsplit(manage_links.manage_url("", get_services().secrets, 1, bought_reference)).path


def test_the_owners_words_on_every_hosted_page(owner: PanelClient, demo: DemoStore, invoke: Invoke) -> None:
    words_saved(owner)
    ident = basket_with_a_sword(demo, invoke)

    auth = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert auth.status == 200 and '<html lang="de">' in auth.body
    assert '<label for="username">Spielername</label>' in auth.body
    assert ">Weiter zum Bezahlen</button>" in auth.body
    assert "Gib deinen Benutzernamen ein, um zu Demo Craft weiterzugehen." in auth.body  # the rest built-in
    escaped(auth)

    checkout = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert checkout.status == 200
    assert "<title>Zur Kasse · Demo Craft</title>" in checkout.body and "<h1>Zur Kasse</h1>" in checkout.body
    assert "Jetzt zahlen: " in checkout.body and "Jetzt bezahlen" not in checkout.body
    assert "&lt;script&gt;alert(1)&lt;/script&gt; Zurück zu Demo Craft" in auth.body
    assert ">Deine Bestellung<" in checkout.body
    escaped(checkout)

    assert pay(invoke, ident, checkout).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200 and "<title>Beleg · Demo Craft</title>" in receipt.body
    assert "Vielen Dank, Held" in receipt.body and "Danke für deinen Einkauf" not in receipt.body
    escaped(receipt)

    problem = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert problem.status == 409 and '<html lang="de">' in problem.body  # paid for: the problem page
    escaped(problem)

    bought = buy_subscription(invoke, demo)
    manage = invoke(get_subscription_page.handler, "GET", manage_path(bought.reference))
    assert manage.status == 200 and "<h1>Dein Abo bei Demo Craft</h1>" in manage.body
    escaped(manage)

    find = invoke(get_find_subscriptions_page.handler, "GET", f"/subscriptions/find/{demo.token}")
    assert find.status == 200 and ">Link schicken</button>" in find.body
    escaped(find)

    # Another language is not touched: the visitor's English stays the catalogs'.
    english = invoke(
        get_auth_page.handler,
        "GET",
        f"/auth/{basket_with_a_sword(demo, invoke)}",
        query={"returnUrl": RETURN},
        headers={"accept-language": "en"},
    )
    assert (
        ">Back to Demo Craft</a>" in english.body and '<label for="username">Username</label>' in english.body
    )


def test_a_store_without_files_shows_the_built_in_words(
    owner: PanelClient, demo: DemoStore, invoke: Invoke
) -> None:
    del owner
    ident = basket_with_a_sword(demo, invoke)
    auth = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert '<label for="username">Benutzername</label>' in auth.body and ">Weiter</button>" in auth.body
    checkout = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert "<h1>Kasse</h1>" in checkout.body and "Jetzt bezahlen · " in checkout.body


def test_an_emptied_file_gives_the_catalogs_back(owner: PanelClient, demo: DemoStore, invoke: Invoke) -> None:
    words_saved(owner)
    assert ShopThemeRepository(get_services().table).words(1)["de"]["Checkout"] == "Zur Kasse"
    assert save(owner, "{}").status == 303
    assert ShopThemeRepository(get_services().table).words(1) == {}
    ident = basket_with_a_sword(demo, invoke)
    assert "<h1>Kasse</h1>" in invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}").body


def _rounds(counter: CallCounter, invoke: Invoke, handler: Any, path: str, **kwargs: Any) -> tuple[int, int]:
    counter.reset()
    response = invoke(handler, "GET", path, **kwargs)
    assert response.status == 200, response.body[:300]
    return counter.rounds, len(counter.calls)


def test_the_pages_read_the_words_in_the_round_trips_they_had(
    owner: PanelClient, demo: DemoStore, invoke: Invoke, counter: CallCounter
) -> None:
    """Round trips and calls of each page, with the owner's files and without: the same (the
    words are one more key of the read the page makes anyway)."""
    bought = buy_subscription(invoke, demo)

    def measure() -> dict[str, tuple[int, int]]:
        ident = basket_with_a_sword(demo, invoke)
        found = {
            "auth": _rounds(
                counter, invoke, get_auth_page.handler, f"/auth/{ident}", query={"returnUrl": RETURN}
            ),
            "checkout": _rounds(counter, invoke, get_checkout_page.handler, f"/checkout/{ident}"),
        }
        assert (
            pay(invoke, ident, invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")).status == 303
        )
        found["receipt"] = _rounds(
            counter, invoke, get_checkout_receipt.handler, f"/checkout/{ident}/receipt"
        )
        found["manage"] = _rounds(
            counter, invoke, get_subscription_page.handler, manage_path(bought.reference)
        )
        found["find"] = _rounds(
            counter, invoke, get_find_subscriptions_page.handler, f"/subscriptions/find/{demo.token}"
        )
        return found

    without = measure()
    words_saved(owner)
    assert measure() == without
    assert {page: rounds for page, (rounds, _) in without.items()} == {
        "auth": 1,
        "checkout": 1,
        "receipt": 1,
        "manage": 1,
        "find": 1,
    }
