"""Starting an empty store (`webstore init`): the store, its first server and its owner account
in one step, through the catalog import (the one way a store is created) and the staff use case.

What it asks for is what no default can give: the store's name, its currency, the owner's
address (and optionally its id, its game's server name, its own site). Everything else is the
catalog's defaults; the platform's own hosts are always allowed return hosts
(webstore.storefront.return_urls.platform_hosts), so the first basket's log-in works without a
setting. The inputs are all checked before anything is written; the store must not exist yet
(`webstore import` changes an existing one).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from webstore.admin.staff import check_email, create_owner
from webstore.catalog_file import CatalogError, check_catalog
from webstore.catalog_import import import_catalog
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.store import StoreRepository
from webstore.services import Services

SOURCE = "init"


@dataclass(frozen=True)
class NewStore:
    """What `webstore init` prints once: the store's keys, its server's secret, the owner's password."""

    account_id: int
    public_token: str
    checkout_api_key: str
    server_id: int
    server_secret: str
    owner_email: str
    owner_password: str


def store_document(
    store_id: int, name: str, currency: str, *, server_name: str, webstore_url: str = ""
) -> dict[str, Any]:
    """The catalog file of an empty store: the store section and one server."""
    store: dict[str, Any] = {"id": store_id, "name": name.strip(), "currency": currency.strip().upper()}
    if webstore_url:
        store["webstore_url"] = webstore_url.strip()
    return {"store": store, "servers": [{"id": 1, "name": server_name.strip()}]}


def create_store(
    services: Services,
    *,
    store_id: int,
    name: str,
    currency: str,
    owner_email: str,
    now: datetime,
    server_name: str = "Server",
    webstore_url: str = "",
) -> NewStore:
    """The store, its server and its owner. Invalid naming the field (nothing written) for a
    mistake; Conflict when store `store_id` exists."""
    email = check_email(owner_email, field="owner_email")
    document = store_document(store_id, name, currency, server_name=server_name, webstore_url=webstore_url)
    try:
        catalog = check_catalog(document, source=SOURCE)
    except CatalogError as error:
        raise Invalid("; ".join(p.removeprefix(f"{SOURCE}: ") for p in error.problems)) from None
    try:
        StoreRepository(services.table).store(store_id)
    except NotFound:
        pass
    else:
        raise Conflict(
            f"store {store_id} exists already: pick another id (--store), or change it with "
            "`webstore import` / the panel",
            field="store",
        )
    imported = import_catalog(services.table, catalog, now=now, box=services.secrets, actor="init")
    owner = create_owner(services, imported.account_id, email, now)
    return NewStore(
        account_id=imported.account_id,
        public_token=imported.public_token,
        checkout_api_key=imported.checkout_api_key or "",
        server_id=1,
        server_secret=imported.server_secrets.get(1) or "",
        owner_email=owner.member.email,
        owner_password=owner.password,
    )
