"""The base of the stored domain models, and the field types most of them share.

Apart from `catalog` so that a module needing only these (the command queue, a server's
record) does not import every catalog model (the cold start)."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Int32 = Annotated[int, Field(ge=1, le=2_147_483_647)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class Model(BaseModel):
    # defer_build: a model is compiled on first use, so a function imports only what it uses.
    model_config = ConfigDict(extra="forbid", defer_build=True)
