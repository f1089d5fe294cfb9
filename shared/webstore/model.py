"""The base of the stored domain models, and the field types most of them share.

Apart from `catalog` so that a module needing only these (the command queue, a server's
record) does not import every catalog model (the cold start).

Two habits of the model modules on a page's path, for the same reason (docs/cold-start.md,
"Shop pages"): no postponed annotations (`from __future__ import annotations` makes pydantic
evaluate every field's annotation from a string when the class is created), and an empty list
or dict default written as the value (`= []`, `= {}`; pydantic copies it for each instance), not
`default_factory=list`, whose signature pydantic reads through `inspect`, parsing the builtin's
text signature with `tokenize` when the model is built."""

from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

Int32 = Annotated[int, Field(ge=1, le=2_147_483_647)]
Name = Annotated[str, Field(min_length=1, max_length=200)]


class Model(BaseModel):
    # defer_build: a model is compiled on first use, so a function imports only what it uses.
    model_config = ConfigDict(extra="forbid", defer_build=True)
