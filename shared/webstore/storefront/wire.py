"""The storefront interface's wire base: money as SPEC types it, the response model every shape
derives from, and the `{"data": ...}` envelope (the shapes are in `schemas` and `basket_wire`)."""

from decimal import Decimal
from typing import Annotated, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, PlainSerializer

# SPEC types money as "float": a JSON number, not a string.
Money = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
T = TypeVar("T")


class Wire(BaseModel):
    """A response model compiled on first use (defer_build): a route builds the few it answers
    with, not the interface's every model at import (the cold start). Request bodies are in
    `storefront.requests`, compiled at import: FastAPI reads them as body parameters, and a
    deferred one is then compiled with the parameter's alias, which pydantic warns has no
    effect; there, a route that reads (and the shop's pages) does not compile them."""

    model_config = ConfigDict(defer_build=True)


class Envelope(Wire, Generic[T]):
    data: T
