"""The caller-input rules of webstore.validation (issue 10.8, 10.10, 10.11)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from webstore.operator.ids import parse_command_ids
from webstore.validation import COMMAND_MAP, MONEY_INPUT, CallerMap, CommandText, PathRef, ascii_int


class Body(BaseModel):
    custom: CallerMap | None = None
    variables: Annotated[dict[str, CommandText | int], COMMAND_MAP] = Field(default_factory=dict)
    ref: PathRef = "1"


def refused(**fields: Any) -> str:
    with pytest.raises(ValidationError) as caught:
        Body(**fields)
    locations = {str(error["loc"][0]) for error in caught.value.errors()}
    assert len(locations) == 1, locations
    return locations.pop()


@pytest.mark.parametrize(
    "custom",
    [{"": 1}, {"a": {"": 1}}, {"a": [{"": 1}]}, {"a": "\ud800"}, {"\udfff": 1}, {"a": ["x", "\udc00"]}],
)
def test_a_caller_map_refuses_empty_keys_and_lone_surrogates_at_any_depth(custom: dict[str, Any]) -> None:
    assert refused(custom=custom) == "custom"


def test_a_caller_map_keeps_ordinary_json() -> None:
    custom = {"a": {"b": [1, "x\ny", None, {"c": True}]}, "emoji": "\U0001f600"}
    assert Body(custom=custom).custom == custom


@pytest.mark.parametrize(
    "value", ["hi\nop Mallory", "nul\x00", "tab\t", "del\x7f", "c1\x85", "cr\r", "\ud800"]
)
def test_command_values_refuse_control_characters_and_surrogates(value: str) -> None:
    assert refused(variables={"name": value}) == "variables"
    assert refused(variables={value: "x"}) == "variables"


def test_command_values_keep_printable_text() -> None:
    assert Body(variables={"name": "Ünïcode name ☃", "n": 3}).variables == {"name": "Ünïcode name ☃", "n": 3}
    assert refused(variables={"": "x"}) == "variables"


@pytest.mark.parametrize("ref", ["¹", "①", "٣", "1²"])
def test_a_path_ref_takes_only_ascii_digits(ref: str) -> None:
    assert refused(ref=ref) == "ref"


def test_a_path_ref_keeps_ids_and_slugs() -> None:
    assert Body(ref="123").ref == "123"
    assert Body(ref="vip-rank").ref == "vip-rank"


def test_ascii_int() -> None:
    assert ascii_int("42") == 42
    assert ascii_int(" 42 ") == 42
    assert ascii_int("٣") is None and ascii_int("¹") is None
    assert ascii_int("9" * 5000) is None
    assert ascii_int("0") is None and ascii_int("0", low=0) == 0
    assert ascii_int(str(2**31)) is None


@pytest.mark.parametrize(
    "body",
    [
        b"ids[]=%C2%B9",
        b"ids[]=" + b"9" * 5000,
        b'{"ids":' + b"[" * 1000 + b"]" * 1000 + b"}",
        b'{"ids":[' + b"9" * 4000 + b"]}",
    ],
    ids=["superscript", "5000-digit-form", "nested-1000", "4000-digit-json"],
)
def test_queue_ids_refuse_unicode_digits_huge_numbers_and_deep_nesting(body: bytes) -> None:
    from webstore.errors import Invalid

    with pytest.raises(Invalid) as caught:
        parse_command_ids(body, "")
    assert caught.value.field == "ids"
    assert len(caught.value.detail) < 200


class Priced(BaseModel):
    price: Annotated[Decimal, MONEY_INPUT, Field(ge=0)]


@pytest.mark.parametrize("value", [True, " 1 ", "1e3", "2.", ".5", "0x10", "١٢"])
def test_money_refuses_booleans_and_loose_spellings(value: Any) -> None:
    with pytest.raises(ValidationError):
        Priced(price=value)


@pytest.mark.parametrize(("value", "expected"), [(2, "2"), (2.5, "2.5"), ("3.25", "3.25"), ("10", "10")])
def test_money_takes_json_numbers_and_plain_decimal_strings(value: Any, expected: str) -> None:
    assert Priced(price=value).price == Decimal(expected)
