"""Each shop page reads what it shows in one round trip (docs/shop.md): one call on the
request's thread (the store partition's Query) and, beside it, the store's live theme and the
visitor's basket and tiers (docs/data-model.md counts parallel calls once). Counted from the
DynamoDB client's own calls through the real handlers."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from functions.shop import (
    get_basket,
    get_category,
    get_home,
    get_login,
    get_package,
    get_page,
    post_basket_package,
    post_login,
)
from tests.support.demo import DemoStore
from tests.support.shop import ShopClient
from webstore.players import Tier
from webstore.services import get_services


class Calls:
    def __init__(self) -> None:
        self.own: list[str] = []  # on the request's thread: each a round trip
        self.beside: list[str] = []  # issued on the reads pool while the request's call runs

    def record(self, event_name: str, **_: Any) -> None:
        name = event_name.rsplit(".", 1)[-1]
        (self.own if threading.current_thread() is threading.main_thread() else self.beside).append(name)


@pytest.fixture
def calls(demo: DemoStore) -> Iterator[Calls]:
    found = Calls()
    events = get_services().table.client.meta.events
    events.register("before-call.dynamodb", found.record)
    yield found
    events.unregister("before-call.dynamodb", found.record)


PAGES = [
    (get_home.handler, "/"),
    (get_category.handler, "/category/ranks"),
    (get_category.handler, "/category/items"),
    (get_package.handler, "/package/11"),
    (get_page.handler, "/page/rules"),
    (get_basket.handler, "/basket"),
    (get_login.handler, "/login"),
    (get_package.handler, "/package/999"),  # the branded 404 from the same read
]


@pytest.mark.parametrize(("handler", "path"), PAGES, ids=[p[1] for p in PAGES])
def test_a_page_is_one_round_trip_for_a_new_visitor_and_for_a_player_with_a_basket_and_a_tier(
    calls: Calls, seed_tier: Callable[..., Tier], handler: Any, path: str
) -> None:
    visitor = ShopClient()
    visitor.get(get_home.handler, "/")
    calls.own.clear(), calls.beside.clear()
    assert visitor.get(handler, path).status in (200, 404)
    assert (calls.own, calls.beside) == (["Query"], ["GetItem"])  # the store's live theme beside

    visitor.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"})
    visitor.post(post_login.handler, "/login", {"username": "Notch"})
    seed_tier(username_id=int(visitor.cookies["shop_player"]))
    calls.own.clear(), calls.beside.clear()
    assert visitor.get(handler, path).status in (200, 404)
    assert calls.own == ["Query"]  # the store partition: one round trip
    assert sorted(calls.beside) == ["GetItem", "GetItem", "Query"]  # theme, basket, tiers beside it


def test_a_gift_card_look_up_reads_the_card_beside_the_pages_read(calls: Calls) -> None:
    """The look-up's guard counts first (a write: it must refuse before anything is read), then
    the card is read beside the page's own read: two round trips in all."""
    from functions.shop import get_giftcard

    visitor = ShopClient()
    calls.own.clear(), calls.beside.clear()
    answer = visitor.get(get_giftcard.handler, "/gift-card?code=GIFT-0000-0000-0001")
    assert answer.status in (200, 404)
    assert calls.own == ["UpdateItem", "Query"]  # the guard's count, then the store partition
    assert sorted(calls.beside) == ["GetItem", "GetItem"]  # the card and the live theme beside it
