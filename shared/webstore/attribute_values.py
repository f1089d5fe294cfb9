"""Python values <-> DynamoDB's JSON attribute values, as boto3's TypeSerializer/TypeDeserializer
do it, without their per-value `getattr` dispatch.

boto3's converters were 20-27% of a warm request's in-process time (every attribute of every item
goes through a method lookup built from an f-string). This module gives the same results for
every value (tests/unit/test_attribute_values.py compares them type by type): numbers through
DynamoDB's decimal context (38 digits, the same errors for what DynamoDB cannot store), binary
as boto3's `Binary`. The common shapes take a direct path; anything unusual (sets of mixed
types, subclasses of the builtin types, floats, which boto3 refuses) goes to boto3's own
serializer, so its behaviour, errors included, is kept. `scripts/bench_item_conversion.py`
measures both.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, cast

from boto3.dynamodb.types import DYNAMODB_CONTEXT, Binary, TypeSerializer

_decimal = DYNAMODB_CONTEXT.create_decimal
# Integers below 10**38 in magnitude are exact in DynamoDB's 38-digit context: str() is the answer.
_EXACT_INT = 10**38
_fallback = TypeSerializer()


def _number(value: int | Decimal) -> str:
    if type(value) is int and -_EXACT_INT < value < _EXACT_INT:
        return str(value)
    text = str(_decimal(value))
    if text in ("Infinity", "NaN"):
        raise TypeError("Infinity and NaN not supported")
    return text


def serialize_value(value: Any) -> dict[str, Any]:
    """One Python value as an attribute value (`{"S": ...}`, `{"N": ...}`, ...)."""
    kind = type(value)
    if kind is str:
        return {"S": value}
    if kind is int or kind is Decimal:
        return {"N": _number(value)}
    if kind is bool:
        return {"BOOL": value}
    if value is None:
        return {"NULL": True}
    if kind is dict:
        return {"M": {k: serialize_value(v) for k, v in value.items()}}
    if kind is list:
        return {"L": [serialize_value(v) for v in value]}
    if kind is set or kind is frozenset:
        members = {type(v) for v in value}
        if members and members <= {str}:
            return {"SS": list(value)}
        if members and members <= {int, Decimal}:
            return {"NS": [_number(v) for v in value]}
    # Tuples, bytes, empty or mixed sets, subclasses of the builtins, floats (refused): as boto3 does.
    return cast(dict[str, Any], _fallback.serialize(value))


def deserialize_value(value: Mapping[str, Any]) -> Any:
    """One attribute value as Python: strings, Decimal numbers, bools, None, dicts, lists, sets."""
    if not value:
        raise TypeError("Value must be a nonempty dictionary whose key is a valid dynamodb type.")
    for kind, raw in value.items():  # one entry; boto3 reads the first
        if kind == "S":
            return raw
        if kind == "N":
            return _decimal(raw)
        if kind == "M":
            return {k: deserialize_value(v) for k, v in raw.items()}
        if kind == "BOOL":
            return raw
        if kind == "L":
            return [deserialize_value(v) for v in raw]
        if kind == "NULL":
            return None
        if kind == "SS":
            return set(raw)
        if kind == "NS":
            return set(map(_decimal, raw))
        if kind == "B":
            return Binary(raw)
        if kind == "BS":
            return set(map(Binary, raw))
        raise TypeError(f"Dynamodb type {kind} is not supported")
    raise AssertionError("unreachable")  # pragma: no cover


def serialize(item: Mapping[str, Any]) -> dict[str, Any]:
    """A whole item (or key) as DynamoDB JSON."""
    return {k: serialize_value(v) for k, v in item.items()}


def deserialize(item: Mapping[str, Any]) -> dict[str, Any]:
    """A whole item in DynamoDB JSON as Python values."""
    return {k: deserialize_value(v) for k, v in item.items()}
