"""The requests the official headless starter (tebexio/Headless-Template, Nuxt) makes with only
its API base URL and public key set, and the fields it reads, reproduced through the real
handlers: its code is not ours to commit, its facts are (services/*.ts, stores/*.ts, pages/**)."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from functions.storefront import (
    add_basket_package,
    create_basket,
    get_basket_auth_url,
    get_categories,
    get_package,
    post_auth_page,
)
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore.repo.baskets import BasketRepository

ORIGIN = "http://localhost:3000"  # the starter's own origin: the demo store's site


def accounts(demo: DemoStore) -> str:
    """`useAPI("accounts", url)`: `${apiBaseUrl}/api/accounts/${apiPublicKey}` + url."""
    return f"/api/accounts/{demo.token}"


def data(response: Any) -> Any:
    """useAPI's `response._data.data ?? response._data`."""
    assert response.status == 200, response.body
    body = response.json()
    return body.get("data", body) if isinstance(body, dict) else body


def test_home_page_reads_the_first_package_of_every_category(demo: DemoStore, invoke: Invoke) -> None:
    """pages/index.vue: `getCategories(undefined, true)` (`?includePackages=1`, no basket yet),
    then `category.packages[0].image` for each: a category without packages was a 500."""
    listed = data(
        invoke(get_categories.handler, "GET", f"{accounts(demo)}/categories", query={"includePackages": "1"})
    )
    assert listed
    for category in listed:
        first = category["packages"][0]
        assert first["image"] is None or isinstance(first["image"], str)


def test_package_variables_are_objects_and_absent_when_none(demo: DemoStore, invoke: Invoke) -> None:
    """getPackage(id) → `MaybePackageWithVariables`: `variables?: PackageVariable[]` read as
    `{id, identifier, description, type, options?}`; gift.vue/index.vue test `if (pkg.variables)`
    before opening the variables step, so a package without any must not carry `[]`."""
    shout = data(invoke(get_package.handler, "GET", f"{accounts(demo)}/packages/13"))
    assert shout["variables"] == [{"id": 1, "identifier": "note", "description": "Note", "type": "text"}]
    sword = data(invoke(get_package.handler, "GET", f"{accounts(demo)}/packages/10"))
    assert "variables" not in sword


def test_a_dropdown_variable_is_drawn_and_its_option_id_buys(demo: DemoStore, invoke: Invoke) -> None:
    """pages/index/package/[id]/variables.vue draws a `Dropdown` only when `variable.type &&
    variable.options`, with `valueKey="id"` (`option.name` shown): the demo's "1,000 Coins" has
    a dropdown, so the starter can buy it. Its add is `addPackageToBasket(ident, id, 1,
    variableData)` with the route's `id` as a string and `variableData[identifier]` the chosen
    option's `id` (a number), or `null` when none was chosen."""
    coins = data(invoke(get_package.handler, "GET", f"{accounts(demo)}/packages/11"))
    [world] = coins["variables"]
    assert world["type"] == "dropdown" and world["identifier"] == "world"
    assert [(o["id"], o["name"], o["value"]) for o in world["options"]] == [
        (1, "Survival", "survival"),
        (2, "Creative", "creative"),
    ]
    assert all(o["price"] == 0 and o["percentage"] == 0 for o in world["options"])
    ident = data(invoke(create_basket.handler, "POST", f"{accounts(demo)}/baskets", body={}))["ident"]

    def add(variable_data: dict[str, Any]) -> Any:
        body = {"package_id": "11", "quantity": 1, "variable_data": variable_data}
        return invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)

    unchosen = add({"world": None})
    assert unchosen.status == 422
    assert unchosen.json()["detail"] == "variable_data.world is required by this package"
    wrong = add({"world": 3})
    assert wrong.status == 422 and "must be one of: survival, creative" in wrong.json()["detail"]
    [line] = data(add({"world": 2}))["packages"]
    assert line["id"] == 11
    [stored] = BasketRepository(demo.table).get(ident).lines
    assert stored.variable_data == {"world": "creative"}  # the option's value fills {world}


def test_hosted_log_in_returns_with_success_and_the_cart_item_image_is_a_string(
    demo: DemoStore, invoke: Invoke
) -> None:
    """stores/auth.ts: `getBasketAuthMethods(ident, window.location.origin)`, then the player is
    sent to the method's url; app.vue finishes the log-in only when `route.query.success` is
    there. CartItem.vue draws `<img :src="item.image">` unconditionally."""
    basket = data(invoke(create_basket.handler, "POST", f"{accounts(demo)}/baskets", body={}))
    ident = basket["ident"]
    [method] = data(
        invoke(
            get_basket_auth_url.handler,
            "GET",
            f"{accounts(demo)}/baskets/{ident}/auth",
            query={"returnUrl": ORIGIN},
        )
    )
    page = urlsplit(method["url"])
    form = {"username": "Steve", "returnUrl": parse_qs(page.query)["returnUrl"][0]}
    back = invoke(post_auth_page.handler, "POST", page.path, raw_body=_form(form), headers=_FORM)
    assert back.status == 303
    assert parse_qs(urlsplit(back.headers["location"]).query)["success"] == ["true"]

    added = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 12, "quantity": 1},
    )
    [item] = data(added)["packages"]
    assert item["image"] == ""  # no image: an empty string, not null (the browser fetched `/null`)


_FORM = {"content-type": "application/x-www-form-urlencoded"}


def _form(fields: dict[str, str]) -> str:
    from urllib.parse import urlencode

    return urlencode(fields)


def test_offline_mode_basket_keeps_the_name_as_typed(demo: DemoStore, invoke: Invoke) -> None:
    """stores/auth.ts `login(user)`: `POST /baskets {username}`, then `auth.username = user`.
    In an offline-mode store (the demo's) there is no account to correct the casing: the
    basket's `username` is the name as typed, and the queue's UUID is that spelling's."""
    basket = data(
        invoke(create_basket.handler, "POST", f"{accounts(demo)}/baskets", body={"username": "test"})
    )
    assert basket["username"] == "test" and isinstance(basket["username_id"], int)
