"""Bedrock players in the shop (docs/decisions.md, "Bedrock names"): in a store that accepts
them, a player logs in and is gifted by their Floodgate name (prefix, gamertag with spaces); an
online-mode store identifies them by the offline UUID of that name without asking the name
service; a store that does not accept them refuses the name with the rule."""

from __future__ import annotations

from functions.shop import get_home, get_login, post_basket_package, post_login
from tests.support.demo import DemoStore
from tests.support.name_service import StandInNameService, set_online_mode
from tests.support.shop import ShopClient
from webstore import keys
from webstore.repo.baskets import BasketRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services


def accept_bedrock(demo: DemoStore, prefix: str = ".") -> None:
    repository = StoreRepository(demo.table)
    store = repository.store(1).model_copy(update={"bedrock_prefix": prefix})
    demo.table.put(repository.store_item(store))


def shopping() -> ShopClient:
    player = ShopClient()
    player.get(get_login.handler, "/login")  # a page with a form: it sets the CSRF cookie
    assert player.post(post_basket_package.handler, "/basket/packages", {"package_id": "10"}).status == 303
    return player


def test_a_bedrock_player_logs_in_by_their_floodgate_name(demo: DemoStore) -> None:
    accept_bedrock(demo)
    player = shopping()
    answer = player.post(post_login.handler, "/login", {"username": ".Steve Jobs"})
    assert answer.status == 303, answer.body
    basket = BasketRepository(get_services().table).get(player.cookies["shop_basket"])
    assert basket.username == ".Steve Jobs"
    assert '<span class="who">.Steve Jobs</span>' in player.get(get_home.handler, "/").body
    user = UserRepository(get_services().table).find(".Steve Jobs")
    assert user is not None and user.uuid == keys.player_uuid(".Steve Jobs")


def test_a_gift_to_a_bedrock_player(demo: DemoStore) -> None:
    accept_bedrock(demo)
    player = shopping()
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    fields = {"package_id": "13", "var_note": "hi", "gift_to": ".Big Tree"}
    assert player.post(post_basket_package.handler, "/basket/packages", fields).status == 303
    basket = BasketRepository(get_services().table).get(player.cookies["shop_basket"])
    assert [line.gift_username for line in basket.lines] == [None, ".Big Tree"]


def test_an_online_mode_store_asks_no_name_service_for_a_bedrock_player(
    demo: DemoStore, name_service: StandInNameService
) -> None:
    accept_bedrock(demo, "*")
    set_online_mode(demo.table, 1)
    player = shopping()
    assert player.post(post_login.handler, "/login", {"username": "*Steve Jobs"}).status == 303
    assert name_service.requests == []
    basket = BasketRepository(get_services().table).get(player.cookies["shop_basket"])
    assert basket.username == "*Steve Jobs"
    # Under another prefix the name is neither a Java name nor this store's Bedrock one.
    refused = shopping().post(post_login.handler, "/login", {"username": ".Steve Jobs"})
    assert (
        refused.status == 422 and "a Bedrock player&#39;s is &#39;*&#39; then their gamertag" in refused.body
    )


def test_a_store_without_the_setting_refuses_bedrock_names(demo: DemoStore) -> None:
    del demo
    refused = shopping().post(post_login.handler, "/login", {"username": ".Steve Jobs"})
    assert refused.status == 422
    assert "A username is 3 to 16 letters, digits or underscores" in refused.body
