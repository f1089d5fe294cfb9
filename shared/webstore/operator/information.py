"""GET /information: the store and the calling server."""

from __future__ import annotations

from webstore.errors import Forbidden, NotFound
from webstore.operator.auth import ServerIdentity
from webstore.operator.information_wire import Information, information_view
from webstore.repo.store import StoreRepository
from webstore.services import Services


def information(services: Services, who: ServerIdentity) -> Information:
    """The store and the calling server: one BatchGetItem."""
    store, server = StoreRepository(services.table).store_and_server(who.account_id, who.server_id)
    if store is None:
        raise NotFound("Store not found")
    if server is None:
        raise Forbidden("This server no longer exists")
    return information_view(store, server)
