"""Storefront (headless) calls of the npm and C# SDKs that failed before issue 11, through the
real handlers; the sidebar is parsed with the headless spec's Module schema, strictly."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from functions.storefront import (
    add_basket_package,
    apply_creator_code,
    create_basket,
    create_dynamic_packages,
    get_basket,
    get_categories,
    get_sidebar,
    lookup_username,
    remove_creator_code,
)
from tests.integration.operator.support import manual_payment
from tests.integration.storefront.support import basic
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys

STEAM64 = "76561198042467022"


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="ignore")


Number = StrictInt | StrictFloat


class Header(Strict):
    header: StrictStr


class TopCustomerData(Header):
    username: StrictStr
    username_id: StrictStr
    total: Number | None = None


class TextboxData(Header):
    text: StrictStr


class PackageName(Strict):
    name: StrictStr


class RecentPaymentEntry(Strict):
    username: StrictStr
    username_id: StrictStr
    package: PackageName
    created_at: StrictStr | None
    price: Number | None
    currency: StrictStr | None


class RecentPaymentsData(Header):
    payments: list[RecentPaymentEntry]


class FeaturedPackageData(Header):
    package: dict[str, Any]


class PlayersOnline(Strict):
    online: StrictInt
    max: StrictInt


class ServerStatusData(Header):
    hostname: StrictStr
    port: StrictInt
    online: StrictBool
    players: PlayersOnline | None


class PaymentGoalData(Header):
    percentage: Number
    bar_style: Literal["normal", "striped"]
    bar_animated: StrictBool
    total: Number | None
    target: Number | None


class CommunityGoalData(Header):
    bar_style: Literal["normal", "striped"]
    bar_animated: StrictBool
    percentage: Number
    total_payments: Number | None
    target: Number | None
    times_achieved: StrictInt | None


DATA = {
    "top_customer": TopCustomerData,
    "textbox": TextboxData,
    "recent_payments": RecentPaymentsData,
    "featured_package": FeaturedPackageData,
    "giftcard_balance": Header,
    "server_status": ServerStatusData,
    "payment_goal": PaymentGoalData,
    "community_goal": CommunityGoalData,
}


class SpecModule(Strict):
    id: StrictInt
    type: Annotated[StrictStr, Field(pattern="^(" + "|".join(DATA) + ")$")]
    start_time: StrictStr
    end_time: StrictStr | None
    data: dict[str, Any]


def base(demo: DemoStore) -> str:
    return f"/api/accounts/{demo.token}"


def new_basket(invoke: Invoke, demo: DemoStore, **body: Any) -> Any:
    return invoke(create_basket.handler, "POST", f"{base(demo)}/baskets", body=body or None)


def test_npm_sidebar_modules_parse_as_the_headless_spec_modules(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 10}], price=2.5)
    response = invoke(get_sidebar.handler, "GET", f"{base(demo)}/sidebar")
    assert response.status == 200, response.body
    modules = [SpecModule.model_validate(m) for m in response.json()["data"]]
    assert len(modules) == 8 and len({m.id for m in modules}) == 8
    for module in modules:
        DATA[module.type].model_validate(module.data)
        assert module.end_time is None
    by_type = {m.type: m.data for m in modules}
    steve = keys.player_uuid("Steve").replace("-", "")
    assert by_type["top_customer"]["username_id"] == steve
    [payment] = by_type["recent_payments"]["payments"]
    assert payment["username_id"] == steve and payment["package"] == {"name": "Diamond Sword"}


def test_npm_gift_by_minecraft_uuid_with_or_without_dashes(demo: DemoStore, invoke: Invoke) -> None:
    manual_payment(invoke, demo.server_secret, ign="Alex")  # the store knows Alex now
    alex = keys.player_uuid("Alex")
    for target in (alex, alex.replace("-", "").upper()):
        ident = new_basket(invoke, demo).json()["data"]["ident"]
        body = {"package_id": 10, "target_username_id": target}
        added = invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)
        assert added.status == 200, added.body
        [line] = added.json()["data"]["packages"]
        assert line["in_basket"]["gift_username"] == "Alex"


def test_gift_by_the_numeric_gift_username_id_the_basket_answers(demo: DemoStore, invoke: Invoke) -> None:
    """NPM/CS send back `in_basket.gift_username_id` (its digits, or as a number)."""
    manual_payment(invoke, demo.server_secret, ign="Alex")
    ident = new_basket(invoke, demo).json()["data"]["ident"]
    path = f"/api/baskets/{ident}/packages"
    by_name = invoke(
        add_basket_package.handler, "POST", path, body={"package_id": 10, "target_username_id": "Alex"}
    )
    gift_id = by_name.json()["data"]["packages"][0]["in_basket"]["gift_username_id"]
    assert isinstance(gift_id, str) and gift_id.isdigit()
    for target in (gift_id, int(gift_id)):
        again = invoke(
            add_basket_package.handler, "POST", path, body={"package_id": 10, "target_username_id": target}
        )
        assert again.status == 200, again.body
        [line] = again.json()["data"]["packages"]
        assert (
            line["in_basket"]["gift_username"] == "Alex" and line["in_basket"]["gift_username_id"] == gift_id
        )
    unknown = invoke(
        add_basket_package.handler, "POST", path, body={"package_id": 10, "target_username_id": 987654}
    )
    assert unknown.status == 422 and "target_username_id" in unknown.json()["detail"]


def test_gift_to_a_player_looked_up_through_the_username_lookup(demo: DemoStore, invoke: Invoke) -> None:
    """The headless starter's gift modal: `GET /api/ident/gametypes/{platform_type_id}/username/
    {name}?type=username` (its proxy, base changed to `{headless_url}/ident`), then the answer's
    `id` as `target_username_id`, for a player the store has never seen."""
    path = f"{base(demo)}/ident/gametypes/1/username/Newbie"
    found = invoke(lookup_username.handler, "GET", path, query={"type": "username"})
    assert found.status == 200, found.body
    user = found.json()
    newbie = keys.player_uuid("Newbie").replace("-", "")  # the demo store is offline-mode
    assert user["id"] == newbie and user["username"] == "Newbie" and user["meta"] == {}
    assert {"created_at", "updated_at", "cache_expire"} <= set(user)
    ident = new_basket(invoke, demo).json()["data"]["ident"]
    body = {"package_id": "10", "target_username_id": user["id"]}  # the starter sends both as strings
    added = invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)
    assert added.status == 200, added.body
    assert added.json()["data"]["packages"][0]["in_basket"]["gift_username"] == "Newbie"
    bad = invoke(
        lookup_username.handler,
        "GET",
        f"{base(demo)}/ident/gametypes/1/username/no",
        query={"type": "username"},
    )
    assert bad.status == 422 and "username" in bad.json()["detail"]


def test_gift_to_an_unknown_platform_id_names_the_field(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo).json()["data"]["ident"]
    for target in (STEAM64, keys.player_uuid("Nobody")):
        body = {"package_id": 10, "target_username_id": target}
        refused = invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body=body)
        assert refused.status == 422 and "target_username_id" in refused.json()["detail"]


def test_creator_code_remove_without_a_body(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo).json()["data"]["ident"]
    path = f"{base(demo)}/baskets/{ident}/creator-codes"
    assert invoke(apply_creator_code.handler, "POST", path, body={"creator_code": "STEVE"}).status == 200
    # CS sends an empty body with a JSON content type; the spec declares none.
    removed = invoke(
        remove_creator_code.handler,
        "POST",
        f"{path}/remove",
        raw_body="",
        headers={"content-type": "application/json"},
    )
    assert removed.status == 200, removed.body
    assert removed.json() == {"success": True, "message": "Creator code removed successfully"}
    basket = invoke(get_basket.handler, "GET", f"{base(demo)}/baskets/{ident}").json()["data"]
    assert basket["creator_code"] == ""
    again = invoke(remove_creator_code.handler, "POST", f"{path}/remove")
    assert again.status == 422 and again.json()["field_details"][0]["field"] == "creator_code"


def test_dynamic_packages_without_basket_id_in_the_body(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo, username="Steve").json()["data"]["ident"]
    body = {
        "username": "Steve",
        "category_id": 4,
        "packages": [{"name": "Offer", "price": 2.5, "slug": "offer-1"}],
    }
    path = f"{base(demo)}/baskets/{ident}/dynamic-packages"
    done = invoke(create_dynamic_packages.handler, "PUT", path, body=body, headers=demo.basic_auth())
    assert done.status == 200, done.body
    other = {**body, "basket_id": "1-" + "b" * 32}
    mismatch = invoke(create_dynamic_packages.handler, "PUT", path, body=other, headers=demo.basic_auth())
    assert mismatch.status == 422 and "basket_id" in mismatch.json()["detail"]


def test_tiers_with_a_steam64_username_id(demo: DemoStore, invoke: Invoke) -> None:
    query = {"usernameId": STEAM64, "includePackages": "1"}
    response = invoke(
        get_categories.handler, "GET", f"{base(demo)}/categories", query=query, headers=demo.basic_auth()
    )
    assert response.status == 200, response.body
    ranks = next(c for c in response.json()["data"] if c["id"] == 1)
    assert ranks["tiered"] is True and ranks["active_tier"] is None


def test_store_backend_with_basic_auth_may_return_to_any_https_url(demo: DemoStore, invoke: Invoke) -> None:
    urls = {"complete_url": "https://shop.example.com/thanks", "cancel_url": "https://shop.example.com/cart"}
    path = f"{base(demo)}/baskets"
    made = invoke(create_basket.handler, "POST", path, body=urls, headers=demo.basic_auth())
    assert made.status == 200, made.body
    assert made.json()["data"]["complete_url"] == urls["complete_url"]

    anonymous = invoke(create_basket.handler, "POST", path, body=urls)
    assert anonymous.status == 422
    assert "allowed_return_hosts" in anonymous.json()["detail"]
    plain_http = invoke(
        create_basket.handler,
        "POST",
        path,
        body={"complete_url": "http://shop.example.com/thanks"},
        headers=demo.basic_auth(),
    )
    assert plain_http.status == 422
    wrong_key = invoke(create_basket.handler, "POST", path, body=urls, headers=basic(demo.token, "nope"))
    assert wrong_key.status == 401
