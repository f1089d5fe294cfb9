"""The catalog's pure rules: what changed (the audit log's `field: old → new`), the one rule of
what a sale or coupon applies to, ids taken above the highest in use, and the coupon form's
numeric select read back as the model's number."""

from __future__ import annotations

from decimal import Decimal

import pytest

from webstore.admin.catalog_forms import read_form
from webstore.catalog import Coupon
from webstore.catalog_diff import field_changes, summary
from webstore.catalog_rules import target_problems
from webstore.repo.sequences import IdAllocation


def test_field_changes_old_to_new_nested_dotted_secrets_as_changed() -> None:
    old = {"name": "VIP", "price": "4.99", "discount": {"percentage": "10"}, "secret": "a", "note": ""}
    new = {"name": "VIP", "price": "9.99", "discount": {"percentage": "15"}, "secret": "b", "note": "x"}
    assert field_changes(old, new) == [
        'price: "4.99" → "9.99"',
        'discount.percentage: "10" → "15"',
        "secret: changed",
        'note: "" → "x"',
    ]
    assert field_changes(old, dict(old)) == []
    assert field_changes({"a": 1, "updated_at": 1}, {"a": 1, "updated_at": 2}, ignore=("updated_at",)) == []
    assert field_changes({"logo": None}, {"logo": "x.png"}) == ['logo: none → "x.png"']
    assert summary("store settings", []) == "store settings: no changes"
    long = field_changes({"content": "a" * 100}, {"content": "b"})[0]
    assert long.startswith('content: "aaa') and "…" in long and len(long) < 100


def known(*ids: int) -> object:
    return set(ids).__contains__


@pytest.mark.parametrize(
    ("applies_to", "packages", "categories", "expected"),
    [
        ("cart", [], [], []),
        ("package", [1], [], []),
        ("package", [], [], [("packages", None, "required when it applies to a package: name at least one")]),
        ("package", [1, 9], [], [("packages", 1, "package 9 is not in the catalog")]),
        ("all", [1], [], [("packages", None, "used only when it applies to a package (type package)")]),
        ("category", [], [7], [("categories", 0, "category 7 is not in the catalog")]),
    ],
)
def test_one_target_rule(
    applies_to: str, packages: list[int], categories: list[int], expected: list[tuple[str, int | None, str]]
) -> None:
    found = target_problems(
        applies_to, packages, categories, package_exists=lambda i: i == 1, category_exists=lambda i: i == 3
    )
    assert found == expected


def test_ids_are_taken_after_the_sequence_and_after_the_highest_in_use() -> None:
    ids = IdAllocation(1, {"package": 3})
    assert ids.take("package", above=20) == [21]
    assert ids.take("package") == [22]
    assert IdAllocation(1, {"package": 30}).take("package", above=20) == [31]
    assert IdAllocation(1, None).take("page") == [1]


def test_the_coupon_form_reads_discount_application_method_as_the_models_number() -> None:
    """The root of "Input should be 0, 1 or 2": the select's value is text, the model's field is
    `Literal[0, 1, 2]`, which does not take "0"."""
    values = read_form(
        "coupon",
        {
            "code": "WELCOME10",
            "discount.type": "percentage",
            "discount.percentage": "10",
            "discount_application_method": "2",
        },
        creating=False,
    )
    assert values["discount_application_method"] == 2
    coupon = Coupon.model_validate({**values, "id": 1, "created_at": "2025-01-01T00:00:00Z"})
    assert coupon.discount_application_method == 2 and coupon.discount.percentage == Decimal(10)
