"""Item sizes as DynamoDB counts them, and the check every basket write makes (issue 10.9)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from webstore.item_size import MAX_ITEM_BYTES, ItemTooLarge, check_item_size, item_size


def test_sizes_follow_dynamodbs_rules() -> None:
    assert item_size({"PK": "abc"}) == 2 + 3
    assert item_size({"n": Decimal("12345")}) == 1 + 1 + 3
    assert item_size({"b": True, "z": None}) == 2 + 2
    assert item_size({"s": "\U0001f5e1"}) == 1 + 4  # UTF-8 bytes, not characters
    assert item_size({"m": {"k": "v"}}) == 1 + 3 + (1 + 1 + 1)
    assert item_size({"l": ["ab", 1]}) == 1 + 3 + (2 + 1) + (2 + 1)


def test_an_item_past_our_limit_is_refused_naming_the_field() -> None:
    check_item_size({"data": "x" * (MAX_ITEM_BYTES - 100)}, what="The basket", field="basket")
    with pytest.raises(ItemTooLarge) as caught:
        check_item_size({"data": "x" * MAX_ITEM_BYTES}, what="The basket", field="basket")
    assert caught.value.field == "basket"
    assert caught.value.status == 422
