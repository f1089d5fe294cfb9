"""A game server of a store: the catalog lists it, its command queue serves it (`repo.queue`)."""

from pydantic import Field

from webstore.model import Int32, Model, Name


class Server(Model):
    id: Int32
    name: Name
    next_check: int = Field(default=60, ge=1, le=3600)  # seconds between queue polls
    secret_hash: str = ""
