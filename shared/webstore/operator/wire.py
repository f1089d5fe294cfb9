"""The base of the operator interface's response shapes (`schemas`, `queue_schemas`)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class Wire(BaseModel):
    """A response model compiled on first use (defer_build): a route builds the few it answers
    with, not the interface's every model at import (the cold start). Request bodies stay plain
    `BaseModel`s: FastAPI reads them as body parameters, and a deferred one is then compiled
    with the parameter's alias, which pydantic warns has no effect."""

    model_config = ConfigDict(defer_build=True)
