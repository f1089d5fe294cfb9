"""Control panel catalog scenarios for scripts/bench_round_trips.py: the list pages and a form
(one Query of the kind, the session beside it), the audit log, and saves (the catalog's one edit
use case: one read of the catalog, one transaction; nothing written when nothing changed)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from functions.admin import (
    get_audit_log,
    get_catalog_element,
    get_store_settings,
    list_catalog_section,
    save_catalog_element,
)
from tests.support.panel import PanelClient, add_staff, form_body
from webstore.admin.roles import Role


def setup(ctx: dict[str, Any]) -> None:
    member = add_staff(Role.OWNER, email="bench-catalog@store1.test")
    client = PanelClient()
    assert client.sign_in(member.member.email).status == 303
    ctx["panel_catalog"] = client


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    client: PanelClient = ctx["panel_catalog"]
    h = {"headers": client.headers()}
    yield "admin listCatalogSection (packages)", list_catalog_section.handler, "GET", "/catalog/packages", h
    yield (
        "admin listCatalogSection (categories)",
        list_catalog_section.handler,
        "GET",
        "/catalog/categories",
        h,
    )
    yield "admin listCatalogSection (coupons)", list_catalog_section.handler, "GET", "/catalog/coupons", h
    yield "admin getCatalogElement (package)", get_catalog_element.handler, "GET", "/catalog/packages/10", h
    yield "admin getStoreSettings", get_store_settings.handler, "GET", "/settings", h
    yield "admin getAuditLog", get_audit_log.handler, "GET", "/audit", h
    body = form_body(
        {"csrf": client.csrf, "revision": "999999", "name": "x", "category_id": "2", "price": "1"}
    )
    yield (
        "admin saveCatalogElement (stale revision: 409)",
        save_catalog_element.handler,
        "POST",
        "/catalog/packages/10",
        {"raw_body": body["raw_body"], "headers": client.headers(body["headers"])},
    )
    yield from _saves(ctx, client)


def _saves(ctx: dict[str, Any], client: PanelClient) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    """A package's form saved as read (no changes), then with a new price; a coupon's unchanged.
    Each reads the revision and the element at its turn (the previous save may have moved it)."""
    from webstore.admin.catalog_forms import form_values
    from webstore.repo.catalog_lists import CatalogLists
    from webstore.repo.definitions import DefinitionRepository

    table = ctx["table"]

    def form(kind: str, element_id: int, **changed: str) -> dict[str, Any]:
        element = CatalogLists(table).element(1, kind, element_id).model_dump(mode="json", exclude={"id"})
        fields = {
            **form_values(element),
            **changed,
            "csrf": client.csrf,
            "revision": str(DefinitionRepository(table).revision(1)),
        }
        body = form_body(fields)
        return {"raw_body": body["raw_body"], "headers": client.headers(body["headers"])}

    handler = save_catalog_element.handler
    package = "/catalog/packages/10"
    yield "admin saveCatalogElement (package, unchanged)", handler, "POST", package, form("package", 10)
    yield (
        "admin saveCatalogElement (package, new price)",
        handler,
        "POST",
        "/catalog/packages/10",
        form("package", 10, price="9.99"),
    )
    coupon = "/catalog/coupons/1"
    yield "admin saveCatalogElement (coupon, unchanged)", handler, "POST", coupon, form("coupon", 1)
