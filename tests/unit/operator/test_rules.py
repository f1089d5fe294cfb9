"""The operator interface's pure rules, without a table: coupon field combinations, package
changes, ban addresses, player references, the guard's failure window, key ranges."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from webstore import keys
from webstore.catalog import BasketType, DiscountType, StoreProfile
from webstore.errors import Invalid
from webstore.operator.bans import ban_address
from webstore.operator.coupons import new_coupon
from webstore.operator.packages import package_changes, package_id
from webstore.operator.players import is_uuid, normalize_uuid
from webstore.operator.schemas import CouponCreate, PackageUpdate
from webstore.repo.throttle import FailureMark

NOW = datetime(2026, 3, 1, tzinfo=UTC)


class FakeCatalog:
    """What coupon rules ask of a catalog: does a package / category exist; the store (whose
    username rule a coupon's `username` is checked by)."""

    def __init__(self, packages: set[int], categories: set[int]) -> None:
        self.packages, self.categories = packages, categories
        self.store = StoreProfile(id=1, name="Demo")

    def package(self, package_id: int) -> object | None:
        return object() if package_id in self.packages else None

    def category(self, category_id: int) -> object | None:
        return object() if category_id in self.categories else None


CATALOG: Any = FakeCatalog(packages={1, 2}, categories={10})


def body(**fields: Any) -> CouponCreate:
    base: dict[str, Any] = {
        "code": "spring",
        "effective_on": "cart",
        "discount_type": "percentage",
        "discount_percentage": 15,
    }
    return CouponCreate.model_validate({**base, **fields})


def test_a_valid_coupon_is_built_with_its_code_upper_cased() -> None:
    coupon = new_coupon(
        body(
            effective_on="package",
            packages=[1, 2],
            redeem_unlimited=False,
            expire_limit=5,
            expire_never=False,
            expire_date="2027-01-31",
            start_date="2026-01-01",
            basket_type="single",
            username="Steve",
        ),
        CATALOG,
        7,
        NOW,
    )
    assert coupon.id == 7 and coupon.code == "SPRING" and coupon.created_at == NOW
    assert coupon.effective.packages == [1, 2] and coupon.discount.type is DiscountType.PERCENTAGE
    assert coupon.expire_date == datetime(2027, 1, 31, tzinfo=UTC)
    assert coupon.start_date == datetime(2026, 1, 1, tzinfo=UTC)
    assert coupon.basket_type is BasketType.SINGLE and coupon.username == "Steve"


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"effective_on": "package"}, "packages"),
        ({"effective_on": "package", "packages": [3]}, "packages"),
        ({"packages": [1]}, "packages"),
        ({"effective_on": "category"}, "categories"),
        ({"effective_on": "category", "categories": [11]}, "categories"),
        ({"categories": [10]}, "categories"),
        ({"discount_percentage": 0}, "discount_percentage"),
        ({"discount_type": "value", "discount_percentage": 0}, "discount_amount"),
        ({"redeem_unlimited": False}, "expire_limit"),
        ({"expire_limit": 3}, "expire_limit"),
        ({"expire_never": False}, "expire_date"),
        ({"expire_never": False, "expire_date": "31/01/2027"}, "expire_date"),
        ({"start_date": "2026-13-01"}, "start_date"),
        (
            {"expire_never": False, "expire_date": "2026-01-01", "start_date": "2026-01-01"},
            "expire_date",
        ),
        ({"username": "no spaces allowed"}, "username"),
    ],
)
def test_coupon_field_combinations_are_refused_naming_the_field(fields: dict[str, Any], field: str) -> None:
    with pytest.raises(Invalid) as refused:
        new_coupon(body(**fields), CATALOG, 1, NOW)
    assert refused.value.field == field


def test_an_expire_date_beside_expire_never_is_ignored() -> None:
    # SPEC: expire_never means "ignore expire_date" (BuycraftX always sends one).
    assert new_coupon(body(expire_date="2027-01-01"), CATALOG, 1, NOW).expire_date is None


def test_a_value_coupon_on_a_category() -> None:
    coupon = new_coupon(
        body(
            effective_on="category",
            categories=[10],
            discount_type="value",
            discount_percentage=0,
            discount_amount=5,
        ),
        CATALOG,
        1,
        NOW,
    )
    assert coupon.discount.value == Decimal(5) and coupon.effective.categories == [10]


def test_the_discount_the_type_does_not_use_is_ignored() -> None:
    """The plugins send discount_amount and discount_percentage whatever the type."""
    percentage = new_coupon(body(discount_percentage=10, discount_amount=10), CATALOG, 1, NOW)
    assert (percentage.discount.percentage, percentage.discount.value) == (Decimal(10), Decimal(0))
    value = new_coupon(body(discount_type="value", discount_percentage=5, discount_amount=5), CATALOG, 1, NOW)
    assert (value.discount.percentage, value.discount.value) == (Decimal(0), Decimal(5))


def test_package_changes_need_one_field_and_a_name_that_is_not_blank() -> None:
    assert package_changes(PackageUpdate(name="  Gold  ", disabled=True)) == {
        "name": "Gold",
        "disabled": True,
    }
    with pytest.raises(Invalid) as empty:
        package_changes(PackageUpdate())
    assert empty.value.field == "body"
    with pytest.raises(Invalid) as blank:
        package_changes(PackageUpdate(name="   "))
    assert blank.value.field == "name"


def test_package_refs_are_ids_within_32_bits() -> None:
    assert package_id("42") == 42
    for ref in ("0", "x", "-1", str(keys.INT32_MAX + 1)):
        with pytest.raises(Exception, match="Package not found"):
            package_id(ref)


def test_ban_addresses_are_canonical_or_refused() -> None:
    assert ban_address(None) == "" and ban_address("") == ""
    assert ban_address(" 203.0.113.7 ") == "203.0.113.7"
    assert ban_address("2001:DB8::0:1") == "2001:db8::1"
    with pytest.raises(Invalid) as refused:
        ban_address("300.1.1.1")
    assert refused.value.field == "ip"


def test_player_refs_uuid_with_or_without_dashes() -> None:
    dashed = "069A79F4-44E9-4726-A5BE-FCA90E38AAF5"
    assert is_uuid(dashed) and is_uuid(dashed.replace("-", "")) and not is_uuid("Notch")
    assert normalize_uuid(dashed.replace("-", "")) == dashed.lower()


def test_a_failure_mark_blocks_past_the_allowance_until_its_window_ends() -> None:
    mark = FailureMark(failures=6, expires_at=1_000)
    assert mark.blocks(now=999, allowed=5)
    assert not mark.blocks(now=1_000, allowed=5)
    assert not FailureMark(failures=5, expires_at=1_000).blocks(now=10, allowed=5)


def test_key_ranges_of_id_groups_and_the_due_players() -> None:
    assert keys.id_range(keys.coupon_sk) == (keys.coupon_sk(1), keys.coupon_sk(keys.INT32_MAX))
    assert keys.id_range(keys.ban_sk, 3, 9) == (keys.ban_sk(3), keys.ban_sk(9))
    assert keys.id_of(keys.coupon_sk(7)) == 7 and keys.id_of(keys.command_pointer_sk(12)) == 12
    first, last = keys.due_range(None)
    assert first <= keys.due_sk(1) and keys.due_sk(keys.INT32_MAX) < last
    after, _ = keys.due_range(keys.due_sk(5))
    assert keys.due_sk(5) < after < keys.due_sk(6)
    assert keys.server_sk(3).startswith(keys.SERVER_PREFIX)
