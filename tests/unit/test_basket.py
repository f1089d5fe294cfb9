"""The Basket aggregate's changes, pure: packages, quantities, gifts, codes, the player and
dynamic packages. No table: every input (package, store, history, `now`) is passed in."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

import pytest

from webstore.basket import (
    CHECKOUT_CLAIM_TIMEOUT,
    MAX_COUPONS,
    MAX_DYNAMIC_PACKAGES,
    MAX_GIFTCARDS,
    MAX_LINES,
    MAX_QUANTITY,
    Basket,
    DynamicPackage,
    NewLine,
    PackageRef,
)
from webstore.catalog import (
    BasketType,
    Coupon,
    CreatorCode,
    Discount,
    DiscountType,
    Effective,
    GiftCard,
    Package,
    PackageType,
    Store,
)
from webstore.errors import Conflict, DomainError, Invalid, NotFound

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
D = Decimal


def store(**fields: Any) -> Store:
    return Store(
        id=1,
        name="Test",
        created_at=NOW,
        public_token="1-" + "0" * 32,
        checkout_key_hash="x",
        **fields,
    )


def package(package_id: int = 10, price: str = "5.00", **fields: Any) -> Package:
    return Package(
        id=package_id,
        category_id=fields.pop("category_id", 1),
        name=fields.pop("name", f"Package {package_id}"),
        price=D(price),
        created_at=NOW,
        updated_at=NOW,
        **fields,
    )


def basket(**fields: Any) -> Basket:
    return Basket(
        ident="1-" + "a" * 32, account_id=1, currency="USD", created_at=NOW, updated_at=NOW, **fields
    )


def coupon(code: str = "SAVE10", percentage: str = "10", **fields: Any) -> Coupon:
    return Coupon(
        id=fields.pop("id", 1),
        code=code,
        discount=Discount(type=DiscountType.PERCENTAGE, percentage=D(percentage)),
        effective=Effective(type="cart"),
        discount_application_method=1,
        created_at=NOW,
        **fields,
    )


def giftcard(number: str = "GIFT-0001", balance: str = "10.00", **fields: Any) -> GiftCard:
    return GiftCard(
        id=1, card_number=number, balance=D(balance), starting_balance=D(balance), created_at=NOW, **fields
    )


def dynamic(slug: str, price: str = "2.00") -> DynamicPackage:
    return DynamicPackage(id=0, category_id=0, name=slug, price=D(price), slug=slug)


def add(
    b: Basket,
    p: Package,
    quantity: int = 1,
    *,
    bought: int = 0,
    recipient: tuple[int, str] | None = None,
    **options: Any,
) -> NewLine:
    """Add `p` as a client would: resolve the line, give a gift its recipient, add it."""
    new = b.new_line(PackageRef.parse(p.id), {p.id: p}, options.pop("in_store", store()), NOW, **options)
    if recipient:
        new.line.gift_username_id, new.line.gift_username = str(recipient[0]), recipient[1]
    b.add_line(new, quantity, bought=bought)
    return new


@contextmanager
def refused(error: type[DomainError], field: str | None = None) -> Iterator[None]:
    """The block raises `error`, naming `field` when given."""
    with pytest.raises(error) as info:
        yield
    if field is not None:
        assert info.value.field == field


# --- state ---------------------------------------------------------------------------------


def test_a_complete_or_paid_basket_refuses_changes() -> None:
    with refused(Conflict):
        basket(complete=True).check_changeable(NOW)
    with refused(Conflict):
        basket(payment_status="refund").check_changeable(NOW)
    basket().check_changeable(NOW)


def test_a_live_checkout_claim_holds_the_basket_and_a_stale_one_does_not() -> None:
    claimed = basket(checkout_attempt="k" * 16, checkout_started_at=NOW - timedelta(minutes=1))
    with refused(Conflict):
        claimed.check_changeable(NOW)
    assert not claimed.checkout_in_progress(NOW + CHECKOUT_CLAIM_TIMEOUT)
    claimed.check_changeable(NOW + CHECKOUT_CLAIM_TIMEOUT)


def test_changed_reprices_and_restarts_the_abandonment_clock() -> None:
    b = basket()
    add(b, package(price="5.00"), 2)
    later = NOW + timedelta(hours=1)
    b.changed(store(basket_ttl_seconds=3600), later)
    assert (b.base_price, b.total_price, b.lines[0].line_price) == (D("10.00"), D("10.00"), D("10.00"))
    assert b.updated_at == later and b.expires_at == int(later.timestamp()) + 3600


# --- packages -----------------------------------------------------------------------------


def test_adding_a_package_twice_adds_to_its_line() -> None:
    b = basket()
    add(b, package(), 1)
    add(b, package(), 2)
    assert [(x.package_id, x.quantity) for x in b.lines] == [(10, 3)]


def test_unknown_disabled_expired_or_wrong_category_packages_are_refused() -> None:
    b = basket()
    with refused(NotFound):
        b.new_line(PackageRef.parse(99), {}, store(), NOW)
    with refused(NotFound):
        add(b, package(disabled=True))
    with refused(Invalid, "package_id"):
        add(b, package(expiration_date=NOW))
    with refused(NotFound):
        b.new_line(PackageRef.parse("pkg_2_10"), {10: package()}, store(), NOW)
    assert b.lines == []


def test_type_and_required_variables_are_checked() -> None:
    b = basket()
    with refused(Invalid, "type"):
        add(b, package(), sold_as="subscription")
    with refused(Invalid, "variable_data.colour"):
        add(b, package(variables=["colour"]), variable_data={"colour": "  "})
    add(b, package(variables=["colour"]), variable_data={"colour": "red"})
    assert b.lines[0].variable_data == {"colour": "red"}


def test_disable_quantity_holds_one_and_the_quantity_is_bounded() -> None:
    b = basket()
    add(b, package(disable_quantity=True), 5)
    assert b.lines[0].quantity == 1
    with refused(Invalid, "quantity"):
        add(b, package(11), MAX_QUANTITY + 1)


def test_a_basket_holds_at_most_max_lines() -> None:
    b = basket()
    for n in range(1, MAX_LINES + 1):
        add(b, package(n))
    with refused(Invalid, "package_id"):
        add(b, package(MAX_LINES + 1))
    add(b, package(1))  # more of a line it holds is fine
    assert len(b.lines) == MAX_LINES


def test_user_limit_counts_the_basket_and_what_the_player_bought() -> None:
    limited = package(user_limit=3)
    b = basket(username="Steve", username_id=7)
    add(b, limited, 2, bought=1)
    with refused(Invalid, "quantity"):
        add(b, limited, 1, bought=1)
    assert b.receiver_id(b.lines[0]) == 7


def test_user_limit_is_per_recipient() -> None:
    limited = package(user_limit=1)
    b = basket(username="Steve", username_id=7)
    add(b, limited, 1)
    add(b, limited, 1, gift_to="Alex", recipient=(8, "Alex"))
    assert [(x.gift_username, x.quantity) for x in b.lines] == [(None, 1), ("Alex", 1)]
    with refused(Invalid, "quantity"):
        add(b, limited, 1, gift_to="Alex", recipient=(8, "Alex"))


def test_gifts_need_a_giftable_package_and_store() -> None:
    b = basket(username="Steve", username_id=7)
    with refused(Invalid, "target_username_id"):
        add(b, package(disable_gifting=True), gift_to="Alex")
    with refused(Invalid, "target_username_id"):
        add(b, package(), gift_to="Alex", in_store=store(supports_gifting=False))
    new = b.new_line(PackageRef.parse(10), {10: package()}, store(), NOW, gift_to="steve")
    assert new.gift_to is None  # a gift to oneself is one's own line


def test_removing_a_package_removes_its_lines_or_one_recipients() -> None:
    b = basket(username="Steve", username_id=7)
    add(b, package(), 1)
    add(b, package(), 1, gift_to="Alex", recipient=(8, "Alex"))
    b.remove_package(PackageRef.parse(10), "alex")
    assert [x.gift_username for x in b.lines] == [None]
    b.remove_package(PackageRef.parse("pkg_1_10"), None)
    assert b.lines == []
    with refused(Invalid, "package_id"):
        b.remove_package(PackageRef.parse(10), None)


def test_changing_a_quantity_uses_the_current_price_and_zero_removes() -> None:
    b = basket()
    add(b, package(price="5.00"), 1)
    line = b.line_to_change(PackageRef.parse(10), None)
    b.change_quantity(line, package(price="4.00"), 3)
    assert (line.quantity, line.base_price) == (3, D("4.00"))
    with refused(Invalid, "package_id"):
        b.change_quantity(line, package(disabled=True), 2)
    with refused(NotFound):
        b.change_quantity(line, None, 2)
    b.change_quantity(line, None, 0)
    assert b.lines == []


def test_an_ambiguous_quantity_change_asks_for_the_recipient() -> None:
    b = basket()
    add(b, package(), 1, gift_to="Alex", recipient=(8, "Alex"))
    add(b, package(), 1, gift_to="Notch", recipient=(9, "Notch"))
    with refused(Invalid, "target_username_id"):
        b.line_to_change(PackageRef.parse(10), None)
    assert b.line_to_change(PackageRef.parse(10), "notch").gift_username == "Notch"


def test_package_refs_parse_ids_and_idents() -> None:
    assert PackageRef.parse("12") == PackageRef(None, 12)
    assert PackageRef.parse("dyn_4_70").catalog_ids == ()
    assert PackageRef.parse("pkg_4_70") == PackageRef(False, 70, 4)
    with refused(Invalid, "package_id"):
        PackageRef.parse("abc")


# --- coupons, gift cards, creator codes ------------------------------------------------------


def test_a_coupon_applies_once_and_discounts() -> None:
    b = basket()
    add(b, package(price="10.00"), 1)
    b.apply_coupon(coupon(), store(), NOW)
    b.apply_coupon(coupon(), store(), NOW)  # again: still once
    b.changed(store(), NOW)
    assert [c.code for c in b.coupons] == ["SAVE10"] and b.total_price == D("9.00")


@pytest.mark.parametrize(
    ("fields", "redemptions", "player_redemptions", "reason"),
    [
        ({"start_date": NOW + timedelta(days=1)}, 0, None, "not valid yet"),
        ({"expire_never": False, "expire_date": NOW}, 0, None, "expired"),
        ({"redeem_unlimited": False, "expire_limit": 2}, 2, None, "redemption limit"),
        ({"user_limit": 1}, 0, 1, "already used"),
        ({"username": "Alex"}, 0, None, "another player"),
        ({"basket_type": BasketType.SUBSCRIPTION}, 0, None, "subscriptions only"),
        ({"minimum": D("50")}, 0, None, "at least"),
    ],
)
def test_coupon_rules(
    fields: dict[str, Any], redemptions: int, player_redemptions: int | None, reason: str
) -> None:
    b = basket(username="Steve", username_id=7)
    add(b, package(price="10.00"), 1)
    with pytest.raises(Invalid) as info:
        b.apply_coupon(
            coupon(**fields), store(), NOW, redemptions=redemptions, player_redemptions=player_redemptions
        )
    assert reason in info.value.detail and info.value.field == "coupon_code"
    assert b.coupons == []


def test_unknown_coupons_and_too_many_are_refused_and_removal_needs_an_applied_one() -> None:
    b = basket()
    with refused(Invalid, "coupon_code"):
        b.apply_coupon(None, store(), NOW)
    for n in range(1, MAX_COUPONS + 1):
        b.apply_coupon(coupon(f"C{n}", id=n), store(), NOW)
    with refused(Invalid, "coupon_code"):
        b.apply_coupon(coupon("ONE-MORE", id=99), store(), NOW)
    b.remove_coupon(" c1 ")
    assert len(b.coupons) == MAX_COUPONS - 1
    with refused(Invalid, "coupon_code"):
        b.remove_coupon("C1")


def test_subscription_coupons_need_a_subscription_basket() -> None:
    b = basket()
    add(b, package(type=PackageType.SUBSCRIPTION), 1)
    b.apply_coupon(coupon(basket_type=BasketType.SUBSCRIPTION), store(), NOW)
    assert len(b.coupons) == 1


@pytest.mark.parametrize(
    ("card", "reason"),
    [
        (giftcard(void=True), "no longer valid"),
        (giftcard(expires_at=NOW), "expired"),
        (giftcard(balance="0"), "no balance"),
        (giftcard(currency="EUR"), "in EUR"),
    ],
)
def test_gift_card_rules(card: GiftCard, reason: str) -> None:
    b = basket()
    with pytest.raises(Invalid) as info:
        b.apply_giftcard(card, NOW)
    assert reason in info.value.detail and info.value.field == "card_number"


def test_gift_cards_pay_with_their_balance_and_can_be_removed() -> None:
    b = basket()
    add(b, package(price="15.00"), 1)
    b.apply_giftcard(giftcard(balance="10.00"), NOW)
    b.changed(store(), NOW)
    assert (b.giftcard_amount, b.giftcard_split) == (D("10.00"), {"GIFT-0001": D("10.00")})
    b.remove_giftcard("gift-0001")
    assert (b.giftcards, b.giftcard_balances) == ([], {})
    with refused(Invalid, "card_number"):
        b.remove_giftcard("GIFT-0001")
    with refused(Invalid, "card_number"):
        b.apply_giftcard(None, NOW)
    for n in range(MAX_GIFTCARDS):
        b.apply_giftcard(giftcard(f"CARD-{n}"), NOW)
    with refused(Invalid, "card_number"):
        b.apply_giftcard(giftcard("CARD-X"), NOW)


def test_one_creator_code_replaces_another() -> None:
    b = basket()
    b.apply_creator_code(CreatorCode(code="ALEX", name="Alex"))
    b.apply_creator_code(CreatorCode(code="NOTCH", name="Notch"))
    assert b.creator_code == "NOTCH"
    with refused(Invalid, "creator_code"):
        b.remove_creator_code("ALEX")
    b.remove_creator_code("notch")
    assert b.creator_code == ""
    with refused(Invalid, "creator_code"):
        b.apply_creator_code(None)


# --- the player and dynamic packages -------------------------------------------------------


def test_a_basket_belongs_to_the_first_player_who_authenticates() -> None:
    b = basket()
    assert b.authenticate(7, "Steve", NOW) is True
    assert b.authenticate(7, "Steve", NOW) is False  # again: nothing changes
    with refused(Conflict, "username"):
        b.check_player("Alex")
    with refused(Conflict, "username"):
        b.authenticate(8, "Alex", NOW)
    assert (b.username, b.username_id) == ("Steve", 7)


def test_dynamic_packages_replace_a_category_with_ids_never_reused() -> None:
    b = basket(username="Steve", username_id=7, version=2)
    b.replace_dynamic_packages(5, "steve", [dynamic("a"), dynamic("b")], NOW)
    first = [(d.id, d.category_id) for d in b.dynamic_packages]
    assert first == [(3 * 64 + 1, 5), (3 * 64 + 2, 5)]
    b.version += 1
    b.replace_dynamic_packages(5, "Steve", [dynamic("c")], NOW)
    assert [d.slug for d in b.dynamic_packages] == ["c"]
    assert b.dynamic_packages[0].id not in {i for i, _ in first}


def test_a_dynamic_package_is_added_as_a_line_of_one() -> None:
    b = basket(username="Steve", username_id=7)
    b.replace_dynamic_packages(5, "Steve", [dynamic("sword", "3.00")], NOW)
    dyn = b.dynamic_packages[0]
    new = b.new_line(PackageRef.parse(f"dyn_5_{dyn.id}"), {}, store(), NOW)
    b.add_line(new, 4)
    assert (new.line.dynamic, new.line.quantity, new.line.ident) == (True, 1, f"dyn_5_{dyn.id}")
    with refused(Invalid, "target_username_id"):
        b.new_line(PackageRef.parse(f"dyn_5_{dyn.id}"), {}, store(), NOW, gift_to="Alex")


@pytest.mark.parametrize(
    ("b", "username", "offers", "error", "field"),
    [
        (basket(), "Steve", [], Invalid, "username"),
        (basket(username="Steve", username_id=7), "Alex", [], Invalid, "username"),
        (basket(username="Steve", username_id=7, complete=True), "Steve", [], Conflict, None),
        (basket(username="Steve", username_id=7), "Steve", [dynamic("x"), dynamic("X")], Invalid, "packages"),
        (
            basket(username="Steve", username_id=7),
            "Steve",
            [dynamic(f"p{n}") for n in range(MAX_DYNAMIC_PACKAGES + 1)],
            Invalid,
            "packages",
        ),
    ],
)
def test_dynamic_package_rules(
    b: Basket, username: str, offers: list[DynamicPackage], error: type[DomainError], field: str | None
) -> None:
    with refused(error, field):
        b.replace_dynamic_packages(5, username, offers, NOW)
    assert b.dynamic_packages == []


# --- as sold now (the hosted checkout, before it charges) --------------------------------------


def test_as_sold_now_prices_packages_and_coupons_as_they_are_now() -> None:
    sword = package(10, "2.50")
    b = basket(username="Steve", username_id=7)
    add(b, sword, 2)
    b.coupons = [coupon("SAVE10", "10")]
    dearer = package(10, "4.00")
    b.as_sold_now({10: dearer}, {"SAVE10": coupon("SAVE10", "50", id=2)}, NOW)
    b.reprice(store(), NOW)
    assert b.lines[0].base_price == D("4.00")
    assert b.coupons[0].id == 2
    assert b.total_price == D("4.00")  # 8.00 - 50 %


@pytest.mark.parametrize(
    ("packages", "coupons", "field"),
    [
        ({}, {"SAVE10": None}, "package_id"),  # removed from the catalog
        ({10: package(10, disabled=True)}, {"SAVE10": None}, "package_id"),
        ({10: package(10, expiration_date=NOW)}, {"SAVE10": None}, "package_id"),
        ({10: package(10)}, {}, "coupon_code"),  # the coupon was deleted
    ],
)
def test_as_sold_now_refuses_what_the_store_no_longer_sells(
    packages: dict[int, Package], coupons: dict[str, Any], field: str
) -> None:
    b = basket(username="Steve", username_id=7)
    add(b, package(10), 1)
    b.coupons = [coupon("SAVE10", "10")]
    current = {code: c if c is not None else coupon(code, "10") for code, c in coupons.items()}
    with refused(Invalid, field):
        b.as_sold_now(packages, current, NOW)


def test_as_sold_now_holds_user_limit_across_a_players_lines() -> None:
    """An own line and a gift to Steve, both added before Steve logged in: two for one player."""
    limited = package(12, user_limit=1)
    b = basket()
    add(b, limited, 1)
    add(b, limited, 1, gift_to="Steve", recipient=(7, "Steve"))
    b.authenticate(7, "Steve", NOW)
    with refused(Invalid, "quantity"):
        b.as_sold_now({12: limited}, {}, NOW)


def test_as_sold_now_prices_a_tier_upgrade_at_its_prorated_difference() -> None:
    from webstore.players import Tier

    vip = package(1, "4.99", type=PackageType.SUBSCRIPTION, expiry_length=1, expiry_period="month")
    mvp = package(2, "9.99", type=PackageType.SUBSCRIPTION, expiry_length=1, expiry_period="month")
    b = basket(username="Steve", username_id=7)
    add(b, mvp, 1)
    tier = Tier(
        id=1,
        username_id=7,
        category_id=1,
        package_id=1,
        created_at=NOW,
        next_payment_date=NOW + timedelta(days=15),
    )
    b.as_sold_now({1: vip, 2: mvp}, {}, NOW, {(7, 1): tier})
    assert D("0") < b.lines[0].base_price < D("5.00")
    b.as_sold_now({1: vip, 2: mvp}, {}, NOW, {})  # no tier: the full price
    assert b.lines[0].base_price == D("9.99")
