"""Control panel catalog scenarios for scripts/bench_round_trips.py: the list pages and a form
(one Query of the kind, the session beside it), the audit log, a save (the catalog's export and
import: heavy by design, shown for the record)."""

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
