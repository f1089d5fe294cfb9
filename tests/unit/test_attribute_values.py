"""Our attribute-value converter gives exactly what boto3's TypeSerializer/TypeDeserializer give,
for every DynamoDB type, and fails where they fail."""

from __future__ import annotations

from collections import OrderedDict
from decimal import Decimal, Inexact, Rounded
from enum import IntEnum, StrEnum
from typing import Any

import pytest
from boto3.dynamodb.types import Binary, TypeDeserializer, TypeSerializer

from webstore import attribute_values as av
from webstore import db

boto_serializer = TypeSerializer()
boto_deserializer = TypeDeserializer()


class Colour(StrEnum):
    RED = "red"


class Level(IntEnum):
    HIGH = 3


PYTHON_VALUES: list[Any] = [
    "",
    "plain",
    "ünïcödé ✓",
    0,
    -1,
    42,
    10**37,
    -(10**37),
    10**38 - 1,
    Decimal("0"),
    Decimal("-0"),
    Decimal("0.000"),
    Decimal("12.50"),
    Decimal("1E+10"),
    Decimal("-3.14159265358979323846264338327950288"),  # 36 significant digits
    Decimal("12345678901234567890123456789012345678"),  # 38 digits, the most DynamoDB keeps
    Decimal("1E-100"),
    Decimal("9.99E+125"),
    True,
    False,
    None,
    {},
    [],
    {"a": {"b": {"c": [1, "x", None, True, {"d": Decimal("0.1")}]}}},
    [[], [[]], [{}], {"empty": ""}],
    {"S", "SS", ""},
    {Decimal("1.10"), 2, -3},
    frozenset({"a", "b"}),
    frozenset({1}),
    {True, False},  # bools are numbers to boto3's set check
    set(),  # boto3 calls an empty set a number set
    b"\x00\x01\xff",
    bytearray(b"raw"),
    Binary(b"wrapped"),
    {b"x", b"y"},
    (1, "tuple"),
    OrderedDict([("k", 1)]),
    Colour.RED,
    Level.HIGH,
]


@pytest.mark.parametrize("value", PYTHON_VALUES, ids=repr)
def test_serializes_as_boto3_does(value: Any) -> None:
    assert av.serialize_value(value) == boto_serializer.serialize(value)


@pytest.mark.parametrize("value", PYTHON_VALUES, ids=repr)
def test_round_trip_matches_boto3(value: Any) -> None:
    wire = boto_serializer.serialize(value)
    ours, theirs = av.deserialize_value(wire), boto_deserializer.deserialize(wire)
    assert ours == theirs
    assert type(ours) is type(theirs)
    if isinstance(theirs, Decimal):  # same digits and exponent, not only equal
        assert ours.as_tuple() == theirs.as_tuple()


@pytest.mark.parametrize(
    "value",
    [
        1.5,  # boto3 refuses floats: Decimal is the only number type that round-trips
        [1.5],
        {"price": 1.5},
        {1.5},
        Decimal("NaN"),
        Decimal("Infinity"),
        Decimal("1.000000000000000000000000000000000000001"),  # 40 digits: would be rounded
        10**38,  # 39 digits: boto3 refuses it (Rounded), trailing zeros or not
        10**40 + 1,
        Decimal("1E+200"),  # beyond DynamoDB's exponent range
        object(),
        {"a", 1},
    ],
    ids=repr,
)
def test_refuses_what_boto3_refuses(value: Any) -> None:
    with pytest.raises(Exception) as theirs:
        boto_serializer.serialize(value)
    with pytest.raises(type(theirs.value)):
        av.serialize_value(value)


WIRE_VALUES: list[dict[str, Any]] = [
    {"S": ""},
    {"S": "x"},
    {"N": "0"},
    {"N": "-0.000"},
    {"N": "1.10"},
    {"N": "12345678901234567890123456789012345678"},
    {"N": "1E-130"},
    {"N": "9.9999999999999999999999999999999999999E+125"},
    {"BOOL": True},
    {"BOOL": False},
    {"NULL": True},
    {"M": {}},
    {"L": []},
    {"SS": []},
    {"NS": []},
    {"BS": []},
    {"SS": ["a", "", "b"]},
    {"NS": ["1", "1.0", "2.50"]},
    {"B": b"bytes"},
    {"BS": [b"a", b"b"]},
    {"M": {"nested": {"M": {"deep": {"L": [{"N": "1"}, {"SS": ["s"]}, {"M": {}}]}}}}},
]


@pytest.mark.parametrize("wire", WIRE_VALUES, ids=repr)
def test_deserializes_as_boto3_does(wire: dict[str, Any]) -> None:
    ours, theirs = av.deserialize_value(wire), boto_deserializer.deserialize(wire)
    assert ours == theirs
    assert type(ours) is type(theirs)


@pytest.mark.parametrize("wire", [{}, {"X": "?"}, {"N": "1" * 40}], ids=repr)
def test_refuses_to_deserialize_what_boto3_refuses(wire: dict[str, Any]) -> None:
    with pytest.raises(Exception) as theirs:
        boto_deserializer.deserialize(wire)
    with pytest.raises(type(theirs.value)):
        av.deserialize_value(wire)


def test_decimal_precision_is_kept_exactly() -> None:
    digits = "0.12345678901234567890123456789012345678"
    value = av.deserialize_value({"N": digits})
    assert str(value) == digits
    assert av.serialize_value(value) == {"N": digits}
    with pytest.raises((Inexact, Rounded)):  # one digit more than DynamoDB keeps: refused, not rounded
        av.deserialize_value({"N": digits + "9"})


def test_a_number_that_is_not_one_reads_as_nan_as_with_boto3() -> None:
    assert boto_deserializer.deserialize({"N": "not a number"}).is_nan()
    assert av.deserialize_value({"N": "not a number"}).is_nan()


def test_a_whole_item_converts_both_ways_as_boto3_does() -> None:
    item = {
        "PK": "STORE#1",
        "SK": "PACKAGE#10",
        "entity": "package",
        "price": Decimal("4.99"),
        "version": 3,
        "enabled": True,
        "expires_at": None,
        "tags": {"a", "b"},
        "commands": [{"command": "give {username} diamond", "delay": 0}],
        "meta": {"custom": {"nested": [Decimal("1.5"), "", []]}},
    }
    wire = av.serialize(item)
    assert wire == {k: boto_serializer.serialize(v) for k, v in item.items()}
    assert av.deserialize(wire) == {k: boto_deserializer.deserialize(v) for k, v in wire.items()}
    assert db.serialize is av.serialize and db.deserialize is av.deserialize  # the table's door uses them
