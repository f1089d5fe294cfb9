"""Basket and code scenarios for scripts/bench_round_trips.py (targets: reads 1, writes 1 + 1)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from functions.storefront import (
    add_basket_package,
    apply_coupon,
    apply_creator_code,
    apply_giftcard,
    create_basket,
    get_basket,
    remove_basket_package,
    remove_coupon,
    remove_creator_code,
    remove_giftcard,
    update_basket_package_quantity,
)
from webstore import keys
from webstore.services import get_services
from webstore.storefront import baskets


def setup(ctx: dict[str, Any]) -> None:
    token = ctx["demo"].public_token
    ctx["base"] = f"/api/accounts/{token}"
    services = get_services()
    ctx["basket"] = baskets.create_basket(services, token, baskets.NewBasket(), "192.0.2.1").ident
    player = baskets.create_basket(services, token, baskets.NewBasket(username="BenchPlayer"), "192.0.2.1")
    ctx["player_basket"] = player.ident
    assert player.username_id is not None
    ctx["table"].put(
        {
            **keys.key(keys.account_pk(1), keys.purchases_sk(player.username_id)),
            "entity": "purchases",
            "p10": 0,
        }
    )
    baskets.create_basket(services, token, baskets.NewBasket(username="KnownGiftee"), "192.0.2.1")


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    base, ident, player = ctx["base"], ctx["basket"], ctx["player_basket"]
    tokenless = f"/api/baskets/{ident}"
    with_token = f"{base}/baskets/{ident}"
    yield "createBasket", create_basket.handler, "POST", f"{base}/baskets", {"body": {"custom": {"a": 1}}}
    yield (
        "createBasket (known username)",
        create_basket.handler,
        "POST",
        f"{base}/baskets",
        {"body": {"username": "BenchPlayer"}},
    )
    yield (
        "createBasket (new username: registers)",
        create_basket.handler,
        "POST",
        f"{base}/baskets",
        {"body": {"username": "FreshPlayer"}},
    )
    yield "getBasket (empty)", get_basket.handler, "GET", with_token, {}
    add = add_basket_package.handler
    yield "addBasketPackage (token-less)", add, "POST", f"{tokenless}/packages", {"body": {"package_id": 10}}
    yield (
        "addBasketPackage (ident, with token)",
        add,
        "POST",
        f"{with_token}/packages",
        {"body": {"package_id": "pkg_3_20"}},
    )
    yield (
        "addBasketPackage (gift, known recipient)",
        add,
        "POST",
        f"{tokenless}/packages",
        {"body": {"package_id": 10, "target_username_id": "KnownGiftee"}},
    )
    yield (
        "addBasketPackage (user_limit, known player)",
        add,
        "POST",
        f"/api/baskets/{player}/packages",
        {"body": {"package_id": 12}},
    )
    yield (
        "updateBasketPackageQuantity",
        update_basket_package_quantity.handler,
        "PUT",
        f"{tokenless}/packages/10",
        {"body": {"quantity": 3}},
    )
    for kind, handlers, field, value in (
        ("Coupon", (apply_coupon.handler, remove_coupon.handler), "coupon_code", "WELCOME10"),
        ("GiftCard", (apply_giftcard.handler, remove_giftcard.handler), "card_number", "GIFT-0000-0000-0001"),
        ("CreatorCode", (apply_creator_code.handler, remove_creator_code.handler), "creator_code", "STEVE"),
    ):
        path = {"Coupon": "coupons", "GiftCard": "giftcards", "CreatorCode": "creator-codes"}[kind]
        yield f"apply{kind}", handlers[0], "POST", f"{with_token}/{path}", {"body": {field: value}}
        yield (
            f"apply{kind} (token-less)",
            handlers[0],
            "POST",
            f"{tokenless}/{path}",
            {"body": {field: value}},
        )
    yield "getBasket (3 lines, 3 codes)", get_basket.handler, "GET", with_token, {}
    yield (
        "removeCoupon",
        remove_coupon.handler,
        "POST",
        f"{with_token}/coupons/remove",
        {"body": {"coupon_code": "WELCOME10"}},
    )
    yield (
        "removeGiftCard",
        remove_giftcard.handler,
        "POST",
        f"{tokenless}/giftcards/remove",
        {"body": {"card_number": "GIFT-0000-0000-0001"}},
    )
    yield (
        "removeCreatorCode",
        remove_creator_code.handler,
        "POST",
        f"{tokenless}/creator-codes/remove",
        {"body": {"creator_code": "STEVE"}},
    )
    yield (
        "removeBasketPackage",
        remove_basket_package.handler,
        "POST",
        f"{tokenless}/packages/remove",
        {"body": {"package_id": 20}},
    )
