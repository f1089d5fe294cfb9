"""Packages as the operator sees them (with their sale price and servers), and the three
fields the operator may change."""

from __future__ import annotations

from webstore import keys
from webstore.catalog_edit import save_element
from webstore.errors import Invalid, NotFound
from webstore.operator import schemas, views
from webstore.repo.store import StoreRepository
from webstore.services import Services

# Who the audit log names for a change made with the operator interface (its key is the store's).
OPERATOR = "operator interface"


def package_id(ref: str) -> int:
    if not (ref.isascii() and ref.isdigit()) or not 1 <= int(ref) <= keys.INT32_MAX:
        raise NotFound("Package not found")
    return int(ref)


def list_packages(services: Services, account_id: int, verbose: bool) -> list[schemas.OperatorPackage]:
    view, servers = StoreRepository(services.table).catalog_with_servers(account_id)
    now = services.now()
    return [views.package_view(p, view, servers, now, verbose=verbose) for p in view.packages]


def get_package(services: Services, account_id: int, ref: str, verbose: bool) -> schemas.OperatorPackage:
    wanted = package_id(ref)
    view, servers = StoreRepository(services.table).catalog_with_servers(account_id)
    package = view.package(wanted)
    if package is None:
        raise NotFound("Package not found")
    return views.package_view(package, view, servers, services.now(), verbose=verbose)


def package_changes(body: schemas.PackageUpdate) -> dict[str, object]:
    """The fields sent, checked: at least one, and a name that is not blank. Pure."""
    changes: dict[str, object] = body.model_dump(exclude_none=True)
    if not changes:
        raise Invalid("Send disabled, name and/or price", field="body")
    if body.name is not None:
        changes["name"] = body.name.strip()
        if not changes["name"]:
            raise Invalid("name must not be blank", field="name")
    return changes


def update_package(
    services: Services, account_id: int, ref: str, body: schemas.PackageUpdate
) -> schemas.OperatorPackage:
    """The catalog's one edit use case (webstore.catalog_edit) with the fields sent: it claims the
    catalog revision it read in its transaction (a panel form read before is then stale) and
    writes the audit entry; the package as GET shows it is built from what the edit read."""
    wanted = package_id(ref)
    changes = package_changes(body)
    now = services.now()
    try:
        saved = save_element(
            services,
            account_id,
            "package",
            wanted,
            changes,
            actor=OPERATOR,
            revision=None,
            now=now,
            covers=changes,
        )
    except NotFound:
        raise NotFound("Package not found") from None
    view = StoreRepository.view_of(saved.state.store_items)
    assert saved.catalog is not None
    package = next(p for p in saved.catalog.packages if p.id == wanted)
    view.packages = [package if p.id == wanted else p for p in view.packages]
    return views.package_view(package, view, saved.state.found.servers, now, verbose=False)
