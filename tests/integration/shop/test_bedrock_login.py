"""Bedrock players in the shop (docs/decisions.md, "Bedrock names"): in a store that accepts
them, a player logs in and is gifted by their Floodgate name (prefix, gamertag with spaces; or
the bare gamertag where Floodgate runs without a prefix); an online-mode store identifies them
by the offline UUID of that name without asking the name service, except for an unprefixed name
a Java account could have, which is that account if the name service knows one and the Bedrock
player if not (on the shop's own log-in form and on the hosted auth page); a store that does not
accept them refuses the name with the rule; the panel refuses a prefix and no prefix together."""

from __future__ import annotations

import json

from functions.admin import get_store_settings, save_store_settings
from functions.shop import get_home, get_login, post_basket_package, post_login
from tests.integration.shop.test_hosted_login import (
    hosted,
    hosted_page,
    log_in_on_hosted_page,
    owner,
    shop_url,
)
from tests.integration.shop.test_translation_files import save as save_translations
from tests.support.demo import DemoStore
from tests.support.forms import form_fields
from tests.support.invocation import invoke
from tests.support.name_service import NOTCH, StandInNameService, set_bedrock_names, set_online_mode
from tests.support.panel import PanelClient, signed_in
from tests.support.shop import ShopClient
from webstore import keys
from webstore.admin.roles import Role
from webstore.repo.baskets import BasketRepository
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import UserRepository
from webstore.services import get_services

__all__ = ["hosted", "owner"]  # the hosted log-in's fixtures (tests/integration/shop/test_hosted_login.py)


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
    for name in (".Steve Jobs", "Steve Jobs", "Al"):  # prefixed, or bare but no Java name
        refused = shopping().post(post_login.handler, "/login", {"username": name})
        assert refused.status == 422
        assert "A username is 3 to 16 letters, digits or underscores" in refused.body
        assert "gamertag" not in refused.body


# --- Floodgate without a prefix (`bedrock_unprefixed`) ------------------------------------------


def logged_in(name: str) -> tuple[str, int]:
    """Log in to the shop as `name`: the basket's player (name, id)."""
    player = shopping()
    answer = player.post(post_login.handler, "/login", {"username": name})
    assert answer.status == 303, answer.body
    basket = BasketRepository(get_services().table).get(player.cookies["shop_basket"])
    assert basket.username is not None and basket.username_id is not None
    return basket.username, basket.username_id


def test_an_unprefixed_store_logs_in_a_bedrock_player_by_their_bare_gamertag(demo: DemoStore) -> None:
    set_bedrock_names(demo.table, 1, unprefixed=True)
    for gamertag in ("Steve Jobs", "Al"):  # a space, or shorter than a Java name: only Bedrock's
        assert logged_in(gamertag)[0] == gamertag
        user = UserRepository(get_services().table).find(gamertag)
        assert user is not None and user.uuid == keys.player_uuid(gamertag)
    assert logged_in("Notch")[0] == "Notch"  # offline mode: a Java-shaped name is an offline name
    refused = shopping().post(post_login.handler, "/login", {"username": ".Steve Jobs"})
    assert refused.status == 422
    assert "a Bedrock player&#39;s is their gamertag (up to 16 letters, digits or spaces)" in refused.body


def test_a_gift_to_an_unprefixed_bedrock_player(demo: DemoStore) -> None:
    set_bedrock_names(demo.table, 1, unprefixed=True)
    player = shopping()
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    fields = {"package_id": "13", "var_note": "hi", "gift_to": "Big Tree"}
    assert player.post(post_basket_package.handler, "/basket/packages", fields).status == 303
    basket = BasketRepository(get_services().table).get(player.cookies["shop_basket"])
    assert [line.gift_username for line in basket.lines] == [None, "Big Tree"]
    tree = UserRepository(get_services().table).find("Big Tree")
    assert tree is not None and basket.lines[1].gift_username_id == str(tree.id)


def test_an_online_unprefixed_store_tries_java_first_then_takes_the_bedrock_player(
    demo: DemoStore, name_service: StandInNameService
) -> None:
    set_bedrock_names(demo.table, 1, unprefixed=True)
    set_online_mode(demo.table, 1)
    users = UserRepository(get_services().table)
    # A gamertag no Java name can be: the Bedrock player, the name service not asked.
    assert logged_in("Steve Jobs")[0] == "Steve Jobs"
    assert name_service.requests == []
    # A name both may have: a Java account when the name service knows one (its real casing)…
    name, user_id = logged_in("notch")
    assert name == "Notch" and name_service.requests == ["notch"]
    resolved = users.find_online("Notch")
    assert resolved is not None and resolved.user.id == user_id
    assert resolved.user.uuid.replace("-", "") == NOTCH[0] and users.find("notch") is None
    # …and a Bedrock player (Floodgate's replace-spaces) when it knows none, instead of a refusal.
    name, user_id = logged_in("Steve_Jobs")
    assert name == "Steve_Jobs" and name_service.requests == ["notch", "Steve_Jobs"]
    bedrock = users.find("Steve_Jobs")
    assert bedrock is not None and bedrock.id == user_id and bedrock.uuid == keys.player_uuid("Steve_Jobs")
    assert users.find_online("Steve_Jobs") is None  # no account was resolved: nothing cached as one
    # The same player next time (the name service asked again: Java first, every log-in).
    assert logged_in("Steve_Jobs") == ("Steve_Jobs", user_id)


def test_a_bedrock_player_logs_in_on_the_hosted_page_of_an_online_unprefixed_store(
    demo: DemoStore, name_service: StandInNameService, hosted: PanelClient
) -> None:
    """The shop's log-in on the hosted auth page (the store's choice) takes the same names."""
    del hosted
    set_bedrock_names(demo.table, 1, unprefixed=True)
    set_online_mode(demo.table, 1)
    for name in ("Steve Jobs", "Steve_Jobs"):  # only Bedrock's; both's, no account has it
        player = ShopClient()
        ident, back = hosted_page(player.get(get_login.handler, "/login").headers["location"])
        returned = log_in_on_hosted_page(ident, back, name)
        assert player.get(get_login.handler, returned.removeprefix(shop_url())).status == 303
        assert f'<span class="who">{name}</span>' in player.get(get_home.handler, "/").body
        user = UserRepository(get_services().table).find(name)
        assert user is not None and player.cookies["shop_player"] == str(user.id)
    assert name_service.requests == ["Steve_Jobs"]


# --- A prefix with letters (`BE_`) ---------------------------------------------------------------


def test_a_prefix_with_letters_takes_its_bedrock_names_and_names_both_may_have(demo: DemoStore) -> None:
    accept_bedrock(demo, "BE_")
    assert logged_in("BE_Steve Jobs")[0] == "BE_Steve Jobs"  # a space: only Bedrock's
    # Valid under both rules: in an offline-mode store, an offline name either way.
    assert logged_in("BE_Steve")[0] == "BE_Steve"
    user = UserRepository(get_services().table).find("BE_Steve")
    assert user is not None and user.uuid == keys.player_uuid("BE_Steve")
    refused = shopping().post(post_login.handler, "/login", {"username": ".Steve Jobs"})
    assert refused.status == 422
    assert "a Bedrock player&#39;s is &#39;BE_&#39; then their gamertag" in refused.body


def test_an_online_store_with_a_prefix_of_letters_tries_java_first_then_takes_the_bedrock_player(
    demo: DemoStore, name_service: StandInNameService
) -> None:
    accept_bedrock(demo, "BE_")
    set_online_mode(demo.table, 1)
    name_service.add("5f4dcc3b5aa765d61d8327deb882cf99", "BE_Notch")
    users = UserRepository(get_services().table)
    assert logged_in("BE_Steve Jobs")[0] == "BE_Steve Jobs"  # only Bedrock's: nothing asked
    assert name_service.requests == []
    name, user_id = logged_in("be_notch")  # a Java account has it: that account
    assert name == "BE_Notch" and name_service.requests == ["be_notch"]
    resolved = users.find_online("BE_Notch")
    assert resolved is not None and resolved.user.id == user_id and users.find("be_notch") is None
    name, user_id = logged_in("BE_Steve")  # no account has it: the Bedrock player
    assert name == "BE_Steve" and name_service.requests == ["be_notch", "BE_Steve"]
    bedrock = users.find("BE_Steve")
    assert bedrock is not None and bedrock.id == user_id and bedrock.uuid == keys.player_uuid("BE_Steve")
    assert users.find_online("BE_Steve") is None


HELP_PREFIX = (
    "Bedrock players: your gamertag after the prefix {0}, spaces included (for example {0}Steve Jobs)."
)
HELP_BARE = "Bedrock players: your gamertag, spaces included."


def login_page(language: str = "") -> str:
    headers = {"accept-language": language} if language else {}
    page = invoke(get_login.handler, "GET", "/login", headers=headers)
    assert page.status == 200, page.body
    return page.body


def test_the_log_in_page_tells_bedrock_players_how_to_type_their_name(demo: DemoStore) -> None:
    assert "Bedrock" not in login_page()  # a Java-only store says nothing of them
    accept_bedrock(demo, "BE_")
    assert f'<p class="help">{HELP_PREFIX.format("BE_")}</p>' in login_page()
    assert "dein Gamertag nach dem Präfix BE_, mit Leerzeichen (zum Beispiel BE_Steve Jobs)" in login_page(
        "de"
    )
    accept_bedrock(demo, "<b>")
    assert HELP_PREFIX.format("&lt;b&gt;") in login_page()  # the owner's prefix, escaped
    accept_bedrock(demo, "")
    set_bedrock_names(demo.table, 1, unprefixed=True)
    assert f'<p class="help">{HELP_BARE}</p>' in login_page()
    assert "Joueurs Bedrock : votre gamertag, espaces compris." in login_page("fr")


def test_the_owner_rewords_the_bedrock_help_in_a_translation_file(demo: DemoStore) -> None:
    accept_bedrock(demo, "*")
    owner = signed_in(Role.OWNER)
    words = {
        HELP_PREFIX.replace("{0}Steve Jobs", "%(example)s").replace("{0}", "%(prefix)s"): (
            "Bedrock: %(prefix)s und Gamertag, etwa %(example)s"
        )
    }
    assert save_translations(owner, json.dumps(words)).status == 303
    assert "Bedrock: * und Gamertag, etwa *Steve Jobs" in login_page("de")
    assert HELP_PREFIX.format("*") in login_page()  # English untouched


def test_the_panel_refuses_a_bad_prefix_naming_the_field_and_takes_one_with_letters(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    fields = form_fields(owner.get(get_store_settings.handler, "/settings").body, action="/settings")
    revision = DefinitionRepository(demo.table).revision(1)
    for bad in ("B E", "bedrock__", "Bé"):  # a space, longer than 8, not ASCII
        refused = owner.post(save_store_settings.handler, "/settings", {**fields, "bedrock_prefix": bad})
        assert refused.status == 422, refused.body
        assert "store.bedrock_prefix" in refused.body and "is not a Floodgate username-prefix" in refused.body
    assert DefinitionRepository(demo.table).revision(1) == revision  # nothing written
    saved = owner.post(save_store_settings.handler, "/settings", {**fields, "bedrock_prefix": "BE_"})
    assert saved.status == 303, saved.body
    assert StoreRepository(demo.table).store(1).bedrock_prefix == "BE_"


def test_the_panel_refuses_a_prefix_and_no_prefix_together(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    fields = form_fields(owner.get(get_store_settings.handler, "/settings").body, action="/settings")
    revision = DefinitionRepository(demo.table).revision(1)
    both = {**fields, "bedrock_prefix": ".", "bedrock_unprefixed": "on"}
    refused = owner.post(save_store_settings.handler, "/settings", both)
    assert refused.status == 422, refused.body
    assert "store.bedrock_unprefixed" in refused.body and "Floodgate has one username-prefix" in refused.body
    assert DefinitionRepository(demo.table).revision(1) == revision  # nothing written
    store = StoreRepository(demo.table).store(1)
    assert (store.bedrock_prefix, store.bedrock_unprefixed) == ("", False)
    saved = owner.post(save_store_settings.handler, "/settings", {**fields, "bedrock_unprefixed": "on"})
    assert saved.status == 303, saved.body
    assert StoreRepository(demo.table).store(1).bedrock_unprefixed
