"""One way to change the catalog, through the real handlers under moto: every demo form saved
unchanged writes nothing; an edit's audit entry says `field: old → new`; a panel save and an
operator `PUT /package/{id}` (or an import) interleaved → one wins and the other is told, never
a silent overwrite; a stale catalog file is refused with the difference, `--force` applies it."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

import pytest

from functions.admin import (
    get_catalog_element,
    get_store_settings,
    list_catalog_section,
    save_catalog_element,
    save_sidebar_module,
    save_store_settings,
)
from functions.operator import update_package
from tests.integration.operator.support import call
from tests.support.demo import DemoStore, demo_catalog_data
from tests.support.forms import form_fields
from tests.support.invocation import Invoke
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.catalog_export import export_catalog
from webstore.catalog_import import StaleCatalog, import_catalog, parse_catalog
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_edits import CatalogEdits
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.sequences import SequenceRepository
from webstore.repo.store import StoreRepository

A = 1
SECTIONS = ("categories", "packages", "pages", "coupons", "gift-cards", "sales", "goals")


def snapshot(demo: DemoStore) -> tuple[int, int, dict[str, int]]:
    """The revision, the audit log's length and the id sequences: what a write would move."""
    ids = SequenceRepository(demo.table).read(A)
    sequences = {
        n: ids.last(n) for n in ("coupon", "giftcard", "goal", "category", "package", "page", "sale")
    }
    return DefinitionRepository(demo.table).revision(A), len(AuditLog(demo.table).page(A).entries), sequences


def element_ids(owner: PanelClient, section: str) -> list[str]:
    listed = owner.get(list_catalog_section.handler, f"/catalog/{section}")
    assert listed.status == 200, listed.body
    return sorted(set(re.findall(rf'href="/catalog/{section}/([0-9]+)"', listed.body)), key=int)


def test_every_demo_form_saved_unchanged_says_no_changes_and_writes_nothing(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    before = snapshot(demo)
    saved = 0
    for section in SECTIONS:
        ids = element_ids(owner, section)
        assert ids, f"the demo has no {section}"
        for ref in ids:
            path = f"/catalog/{section}/{ref}"
            fields = form_fields(owner.get(get_catalog_element.handler, path).body, form_class="catalog-form")
            posted = owner.post(save_catalog_element.handler, path, fields)
            assert posted.status == 303, (path, posted.body)
            assert posted.headers["location"].endswith("?done=No+changes"), (path, posted.headers)
            saved += 1
    page = owner.get(get_store_settings.handler, "/settings").body
    posted = owner.post(save_store_settings.handler, "/settings", form_fields(page, action="/settings"))
    assert posted.status == 303 and posted.headers["location"].endswith("done=No+changes"), posted.body
    modules = re.findall(r'action="(/settings/sidebar/[0-9]+)"', page)
    assert modules, "the demo has sidebar modules"
    for action in modules:
        posted = owner.post(save_sidebar_module.handler, action, form_fields(page, action=action))
        assert posted.status == 303 and posted.headers["location"].endswith("done=No+changes"), action
    assert saved >= 15
    assert snapshot(demo) == before  # no revision moved, no audit entry, no id taken


def test_an_edit_says_what_changed_old_to_new(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    page = owner.get(get_store_settings.handler, "/settings").body
    fields = form_fields(page, action="/settings")
    old_name = fields["name"]
    posted = owner.post(save_store_settings.handler, "/settings", {**fields, "name": "Demo Kraft"})
    assert posted.status == 303 and posted.headers["location"].endswith("done=Saved")
    entry = AuditLog(demo.table).page(A).entries[0]
    assert entry.action == "catalog.store.update"
    assert entry.summary == f'store settings: name: "{old_name}" → "Demo Kraft"'

    path = "/catalog/coupons/1"
    fields = form_fields(owner.get(get_catalog_element.handler, path).body, form_class="catalog-form")
    posted = owner.post(
        save_catalog_element.handler,
        path,
        {**fields, "discount.percentage": "15", "discount_application_method": "1"},
    )
    assert posted.status == 303, posted.body
    entry = AuditLog(demo.table).page(A).entries[0]
    assert entry.summary == (
        'coupon 1 "WELCOME10": discount.percentage: "10" → "15"; discount_application_method: 0 → 1'
    )


def test_a_new_coupon_from_the_panel_takes_one_id_and_a_refused_one_none(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    form = owner.get(get_catalog_element.handler, "/catalog/coupons/new").body
    fields = form_fields(form, form_class="catalog-form")
    before = snapshot(demo)[2]["coupon"]
    refused = owner.post(save_catalog_element.handler, "/catalog/coupons/new", {**fields, "code": ""})
    assert refused.status == 422 and snapshot(demo)[2]["coupon"] == before
    typed = {**fields, "code": "SPRING", "discount.percentage": "5", "note": "typed"}
    bad = owner.post(save_catalog_element.handler, "/catalog/coupons/new", {**typed, "minimum": "lots"})
    assert bad.status == 422 and 'value="SPRING"' in bad.body and 'value="typed"' in bad.body  # kept
    made = owner.post(save_catalog_element.handler, "/catalog/coupons/new", typed)
    assert made.status == 303, made.body
    assert made.headers["location"].startswith(f"/catalog/coupons/{before + 1}?")
    assert snapshot(demo)[2]["coupon"] == before + 1


def elsewhere(request: Callable[[], Any]) -> Any:
    """Another request, made while this one waits (its own thread: a handler runs its own loop)."""

    def own_loop() -> Any:
        asyncio.set_event_loop(asyncio.new_event_loop())  # Mangum needs one in every thread
        return request()

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(own_loop).result()


def package_form(owner: PanelClient, package_id: int) -> dict[str, str]:
    page = owner.get(get_catalog_element.handler, f"/catalog/packages/{package_id}").body
    return form_fields(page, form_class="catalog-form")


def test_an_operator_put_landing_between_a_panel_read_and_its_write_refuses_the_panel(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The panel's edit has read the catalog; the operator's PUT commits before the panel's
    transaction: the panel is told (409, its form kept), the operator's change stands."""
    owner = signed_in(Role.OWNER)
    fields = package_form(owner, 10)
    commit = CatalogEdits.commit
    landed: list[int] = []

    def operator_first(self: CatalogEdits, tx: Any, ids: Any) -> None:
        if not landed:
            landed.append(1)
            put = elsewhere(
                lambda: call(invoke, demo, update_package, "PUT", "/package/10", body={"price": 7})
            )
            assert put.status == 200, put.body
        commit(self, tx, ids)

    monkeypatch.setattr(CatalogEdits, "commit", operator_first)
    posted = owner.post(
        save_catalog_element.handler, "/catalog/packages/10", {**fields, "name": "Panel Sword"}
    )
    assert posted.status == 409, posted.body
    assert "changed by someone else" in posted.body and 'value="Panel Sword"' in posted.body
    package = StoreRepository(demo.table).package(A, 10)
    assert package is not None and package.price == Decimal(7) and package.name != "Panel Sword"


def test_a_panel_save_landing_between_an_operator_read_and_its_write_is_kept(
    demo: DemoStore, invoke: Invoke, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The operator's PUT has read the catalog; a panel save commits first: the operator's claim
    loses, it reads again and applies its field on top — the panel's change is not undone."""
    owner = signed_in(Role.OWNER)
    fields = package_form(owner, 10)
    commit = CatalogEdits.commit
    landed: list[int] = []

    def panel_first(self: CatalogEdits, tx: Any, ids: Any) -> None:
        if not landed:
            landed.append(1)
            monkeypatch.setattr(CatalogEdits, "commit", commit)
            posted = elsewhere(
                lambda: owner.post(
                    save_catalog_element.handler, "/catalog/packages/10", {**fields, "name": "Panel Sword"}
                )
            )
            assert posted.status == 303, posted.body
            monkeypatch.setattr(CatalogEdits, "commit", panel_first)
        commit(self, tx, ids)

    monkeypatch.setattr(CatalogEdits, "commit", panel_first)
    put = call(invoke, demo, update_package, "PUT", "/package/10", body={"price": 7})
    assert put.status == 200 and put.json()["name"] == "Panel Sword", put.body
    package = StoreRepository(demo.table).package(A, 10)
    assert package is not None and (package.name, package.price) == ("Panel Sword", Decimal(7))
    entries = {e.actor: e.summary for e in AuditLog(demo.table).page(A).entries[:2]}
    assert entries["operator interface"] == 'package 10 "Panel Sword": price: "2.50" → "7"'
    assert entries[next(a for a in entries if "@" in a)].endswith('name: "Diamond Sword" → "Panel Sword"')


def test_an_import_after_a_form_was_read_refuses_the_form(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    fields = package_form(owner, 10)
    data = demo_catalog_data()
    next(p for p in data["packages"] if p["id"] == 11)["price"] = "8.88"
    import_catalog(demo.table, parse_catalog(data))
    posted = owner.post(save_catalog_element.handler, "/catalog/packages/10", {**fields, "name": "Late"})
    assert posted.status == 409 and "changed by someone else" in posted.body


def test_a_stale_export_is_refused_with_the_difference_and_force_applies_it(demo: DemoStore) -> None:
    exported = export_catalog(demo.table, A)
    owner = signed_in(Role.OWNER)
    fields = package_form(owner, 10)
    assert (
        owner.post(save_catalog_element.handler, "/catalog/packages/10", {**fields, "price": "9.99"}).status
        == 303
    )
    revision = DefinitionRepository(demo.table).revision(A)
    with pytest.raises(StaleCatalog) as refused:
        import_catalog(demo.table, exported)
    assert refused.value.changes.summary() == "~1 package"
    assert any(
        line.startswith('~ package 10 "') and '"9.99" → "' in line for line in refused.value.changes.details
    )
    assert DefinitionRepository(demo.table).revision(A) == revision  # nothing written
    import_catalog(demo.table, exported, now=datetime.now(UTC), force=True)
    package = StoreRepository(demo.table).package(A, 10)
    assert package is not None and package.price != Decimal("9.99")
    entry = AuditLog(demo.table).page(A).entries[0]
    assert entry.action == "catalog.import"
    assert (
        entry.summary
        == f"forced over catalog revision {revision} (the file's: {exported.revision}): ~1 package"
    )


def test_an_import_keeps_what_was_made_outside_the_file_unless_forced(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    form = form_fields(
        owner.get(get_catalog_element.handler, "/catalog/pages/new").body, form_class="catalog-form"
    )
    made = owner.post(
        save_catalog_element.handler, "/catalog/pages/new", {**form, "title": "FAQ", "slug": "faq"}
    )
    assert made.status == 303, made.body
    page_id = int(made.headers["location"].split("/")[3].split("?")[0])
    data = demo_catalog_data()
    data["store"]["name"] = "Renamed in the file"
    result = import_catalog(demo.table, parse_catalog(data))
    assert "page" not in result.changes.removed
    assert AuditLog(demo.table).page(A).entries[0].summary.startswith("~store settings")
    ids = [p.id for p in StoreRepository(demo.table).pages(A).pages]
    assert page_id in ids
    forced = import_catalog(demo.table, parse_catalog(data), force=True)
    assert forced.changes.removed["page"] == [page_id]


def test_a_server_added_in_the_panel_makes_an_open_catalog_form_stale(demo: DemoStore) -> None:
    """Servers are catalog entities too: adding one moves the revision in its transaction."""
    from webstore.admin.servers import create_server
    from webstore.services import get_services

    owner = signed_in(Role.OWNER)
    fields = package_form(owner, 10)
    revision = DefinitionRepository(demo.table).revision(A)
    create_server(get_services(), A, "Skyblock", actor="owner@store1.test", now=datetime.now(UTC))
    assert DefinitionRepository(demo.table).revision(A) == revision + 1
    posted = owner.post(save_catalog_element.handler, "/catalog/packages/10", {**fields, "name": "Late"})
    assert posted.status == 409 and "changed by someone else" in posted.body


@pytest.mark.parametrize("change", ["webhook disabled", "webhook enabled", "webhook secret", "server secret"])
def test_a_webhook_turned_off_or_on_or_a_secret_rotated_in_the_panel_makes_an_open_catalog_form_stale(
    demo: DemoStore, change: str
) -> None:
    """Webhook endpoints and servers are catalog entities: turning an endpoint off or on and
    rotating an endpoint's or a server's secret move the revision in the change's transaction,
    through the panel's own forms, so an open form read before is refused."""
    from functions.admin import post_server_secret, post_webhook_disabled, post_webhook_secret
    from webstore.admin import webhooks as panel_webhooks
    from webstore.services import get_services

    owner = signed_in(Role.OWNER)
    services = get_services()
    endpoint = panel_webhooks.add_endpoint(
        services, A, "https://hooks.example.com/revision", [], actor="test", now=datetime.now(UTC)
    )
    if change == "webhook enabled":
        panel_webhooks.set_disabled(
            services, A, endpoint.endpoint_id, True, actor="test", now=datetime.now(UTC)
        )
    fields = package_form(owner, 10)
    revision = DefinitionRepository(demo.table).revision(A)
    at = f"/webhooks/{endpoint.endpoint_id}"
    done = {
        "webhook disabled": lambda: owner.post(
            post_webhook_disabled.handler, f"{at}/disabled", {"disabled": "true"}
        ),
        "webhook enabled": lambda: owner.post(
            post_webhook_disabled.handler, f"{at}/disabled", {"disabled": "false"}
        ),
        "webhook secret": lambda: owner.post(post_webhook_secret.handler, f"{at}/secret", {}),
        "server secret": lambda: owner.post(post_server_secret.handler, "/servers/1/secret", {}),
    }[change]()
    assert done.status in (200, 303), done.body
    assert DefinitionRepository(demo.table).revision(A) == revision + 1
    posted = owner.post(save_catalog_element.handler, "/catalog/packages/10", {**fields, "name": "Late"})
    assert posted.status == 409 and "changed by someone else" in posted.body
