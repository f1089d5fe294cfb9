"""Catalog edits from the panel (webstore.admin.catalog): the catalog file's validation and
import, an audit entry naming the staff member, and no lost update between two editors."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

from tests.support.demo import DemoStore, demo_catalog_data
from webstore.admin.catalog import (
    CatalogInvalid,
    catalog_revision,
    delete_element,
    save_element,
    save_gateways,
    save_sidebar_module,
    save_store_settings,
)
from webstore.catalog_file import CatalogError, load_catalog
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.errors import Conflict, Invalid, NotFound
from webstore.repo.audit_log import AuditLog
from webstore.repo.store import StoreRepository
from webstore.services import get_services

A = 1
STAFF = "owner@example.com"
NOW = datetime(2099, 11, 23, 22, 0, tzinfo=UTC)  # after the demo import, whenever the test runs
EMERALD = {
    "category_id": 2,
    "name": "Emerald",
    "price": "1.50",
    "commands": [{"server_id": 1, "command": "give {username} emerald 1", "require_online": True}],
}


def test_a_new_package_gets_the_next_id_and_an_audit_entry(demo: DemoStore) -> None:
    services = get_services()
    saved = save_element(
        services, A, "package", None, EMERALD, actor=STAFF, revision=catalog_revision(services, A), now=NOW
    )
    package = StoreRepository(demo.table).package(A, saved.element_id or 0)
    assert package is not None and package.name == "Emerald" and package.price == Decimal("1.50")
    assert package.commands[0].require_online and package.created_at == NOW
    assert saved.changes[:2] == ["created", "category_id: none → 2"]
    entry = AuditLog(demo.table).page(A).entries[0]
    assert (entry.actor, entry.action) == (STAFF, "catalog.package.create")
    assert entry.summary.startswith(f'package {saved.element_id} "Emerald": created; category_id: none → 2;')
    assert 'name: none → "Emerald"' in entry.summary


def test_an_update_keeps_created_at_and_a_delete_disables_the_package(demo: DemoStore) -> None:
    services = get_services()
    before = StoreRepository(demo.table).package(A, 10)
    assert before is not None
    values = before.model_dump(mode="json", exclude={"id", "created_at", "updated_at"})
    saved = save_element(
        services,
        A,
        "package",
        10,
        {**values, "price": "2.25"},
        actor=STAFF,
        revision=catalog_revision(services, A),
        now=NOW,
    )
    after = StoreRepository(demo.table).package(A, 10)
    assert after is not None and after.price == Decimal("2.25")
    assert after.created_at == before.created_at and after.updated_at == NOW
    assert saved.changes == [f'price: "{before.price}" → "2.25"']
    # A coupon names package 10: refused as the import refuses a file without it.
    with pytest.raises(
        CatalogInvalid, match=r'coupons\[1\] \(id 2 "SWORD1"\).effective.packages\[0\]: package 10'
    ):
        delete_element(services, A, "package", 10, actor=STAFF, revision=saved.revision, now=NOW)
    later = NOW.replace(minute=5)
    delete_element(services, A, "package", 12, actor=STAFF, revision=saved.revision, now=later)
    gone = StoreRepository(demo.table).package(A, 12)
    assert gone is not None and gone.disabled
    assert AuditLog(demo.table).page(A).entries[0].summary == f'package 12 "{gone.name}": disabled'


def test_a_mistake_reads_as_the_import_prints_it_and_nothing_is_written(
    demo: DemoStore, tmp_path: Path
) -> None:
    services = get_services()
    bad = {**EMERALD, "price": "-1", "commands": [{"server_id": 9, "command": "x"}]}
    revision = catalog_revision(services, A)
    with pytest.raises(CatalogInvalid) as refused:
        save_element(services, A, "package", None, bad, actor=STAFF, revision=revision, now=NOW)

    data = demo_catalog_data()
    data["packages"].append({**bad, "id": 21})
    path = tmp_path / "store.json"
    path.write_text(__import__("json").dumps(data))
    with pytest.raises(CatalogError) as imported:
        load_catalog(path)
    assert refused.value.problems == [p.removeprefix(f"{path}: ") for p in imported.value.problems]
    assert (
        refused.value.problems[0]
        == 'packages[7] (id 21 "Emerald").price: Input should be greater than or equal to 0'
    )
    assert catalog_revision(services, A) == revision  # nothing written
    assert StoreRepository(demo.table).package(A, 21) is None


def test_the_second_of_two_editors_is_told_to_reload(demo: DemoStore) -> None:
    services = get_services()
    seen = catalog_revision(services, A)
    save_element(
        services,
        A,
        "category",
        1,
        {"name": "Ranks", "slug": "ranks", "tiered": True},
        actor="a@x.test",
        revision=seen,
        now=NOW,
    )
    with pytest.raises(Conflict, match="changed by someone else"):
        save_element(
            services,
            A,
            "category",
            1,
            {"name": "Other", "slug": "ranks"},
            actor="b@x.test",
            revision=seen,
            now=NOW,
        )
    category = StoreRepository(demo.table).catalog(A, with_packages=False).categories
    assert [c.name for c in category if c.id == 1] == ["Ranks"]


def test_an_import_makes_an_open_form_stale(demo: DemoStore) -> None:
    services = get_services()
    seen = catalog_revision(services, A)
    import_catalog(demo.table, parse_catalog(demo_catalog_data()))  # the same file: no changes
    assert catalog_revision(services, A) == seen
    changed = demo_catalog_data()
    changed["pages"][0]["content"] = "<p>New rules.</p>"
    import_catalog(demo.table, parse_catalog(changed))
    with pytest.raises(Conflict):
        save_element(
            services, A, "page", 1, {"title": "Rules", "slug": "rules"}, actor=STAFF, revision=seen, now=NOW
        )


def test_store_settings_sidebar_and_gateways(demo: DemoStore) -> None:
    services = get_services()
    store = StoreRepository(demo.table).store(A)
    values = store.model_dump(mode="json", include={"name", "currency", "webstore_url"})
    saved = save_store_settings(
        services,
        A,
        {**values, "name": "Renamed", "primary_color": "#1a5fb4"},
        actor=STAFF,
        revision=catalog_revision(services, A),
        now=NOW,
    )
    renamed = StoreRepository(demo.table).store(A)
    assert (renamed.name, renamed.primary_color, renamed.public_token) == (
        "Renamed",
        "#1a5fb4",
        store.public_token,
    )
    assert renamed.sidebar == store.sidebar and renamed.checkout_key_hash == store.checkout_key_hash
    with pytest.raises(CatalogInvalid, match=r"^store\.primary_color: String should match pattern"):
        save_store_settings(
            services, A, {**values, "primary_color": "red"}, actor=STAFF, revision=saved.revision, now=NOW
        )

    saved = save_sidebar_module(services, A, 0, None, actor=STAFF, revision=saved.revision, now=NOW)
    assert len(StoreRepository(demo.table).store(A).sidebar) == len(store.sidebar) - 1
    with pytest.raises(NotFound):
        save_sidebar_module(services, A, 99, None, actor=STAFF, revision=saved.revision, now=NOW)

    keys = {"publishable_key": "pk_test_abcdefgh12", "sandbox": True}
    with pytest.raises(Invalid, match="secret_key: required"):
        save_gateways(
            services,
            A,
            **keys,
            secret_key="",
            webhook_secret="",
            actor=STAFF,
            revision=saved.revision,
            now=NOW,
        )
    saved = save_gateways(
        services,
        A,
        **keys,
        secret_key="sk_test_abcdefgh12",
        webhook_secret="whsec_abcdefgh12",
        actor=STAFF,
        revision=saved.revision,
        now=NOW,
    )
    sealed = StoreRepository(demo.table).store(A).gateways.stripe
    assert sealed is not None
    # Blank secrets keep the sealed ones: write-only fields.
    save_gateways(
        services, A, **keys, secret_key="", webhook_secret="", actor=STAFF, revision=saved.revision, now=NOW
    )
    assert StoreRepository(demo.table).store(A).gateways.stripe == sealed


def test_gift_cards_are_voided_not_deleted(demo: DemoStore) -> None:
    services = get_services()
    with pytest.raises(Invalid, match="void it instead"):
        delete_element(
            services, A, "gift_card", 1, actor=STAFF, revision=catalog_revision(services, A), now=NOW
        )


def test_another_store_is_not_reached(demo: DemoStore, other_store: object) -> None:
    services = get_services()
    save_element(
        services,
        2,
        "category",
        1,
        {"name": "Theirs", "slug": "ranks"},
        actor=STAFF,
        revision=catalog_revision(services, 2),
        now=NOW,
    )
    ours = StoreRepository(demo.table).catalog(A, with_packages=False).categories
    assert [c.name for c in ours if c.id == 1] == ["Ranks"]
    assert STAFF not in [e.actor for e in AuditLog(demo.table).page(A).entries]


def test_an_edit_from_a_form_keeps_the_fields_the_form_does_not_show(demo: DemoStore) -> None:
    from webstore.admin.catalog_forms import covered, form_values, read_form

    services = get_services()
    package = StoreRepository(demo.table).package(A, 10)
    assert package is not None and package.media
    form = form_values(package.model_dump(mode="json", exclude={"id"}))
    values = read_form("package", {**form, "price": "3.00"}, creating=False)
    save_element(
        services,
        A,
        "package",
        10,
        values,
        actor=STAFF,
        revision=catalog_revision(services, A),
        now=NOW,
        covers=covered("package"),
    )
    after = StoreRepository(demo.table).package(A, 10)
    assert after is not None and after.price == Decimal("3.00")
    assert after.media == package.media and after.commands == package.commands


def test_a_new_coupon_takes_its_id_from_the_accounts_sequence(demo: DemoStore) -> None:
    """The operator interface takes coupon ids from the same sequence, inside its transaction:
    the panel's next coupon follows the operator's."""
    from webstore.catalog import Coupon, Discount
    from webstore.repo.account import AccountRepository

    services = get_services()
    taken = (
        AccountRepository(demo.table)
        .create_coupon(
            A, lambda i: Coupon(id=i, code="OP5", discount=Discount(percentage=Decimal(5)), created_at=NOW)
        )
        .id
    )
    values = {"code": "PANEL10", "discount": {"type": "percentage", "percentage": "10"}}
    saved = save_element(
        services, A, "coupon", None, values, actor=STAFF, revision=catalog_revision(services, A), now=NOW
    )
    assert saved.element_id == taken + 1
    assert AccountRepository(demo.table).coupon_by_code(A, "PANEL10").id == taken + 1


def test_coupons_made_with_the_operator_interface_stay_its_own_after_a_panel_edit(demo: DemoStore) -> None:
    """A panel edit exports every coupon, but only the coupon it edits becomes the file's: a later
    `webstore import` of a file without the operator's coupon keeps it, and a panel delete of one
    removes it."""
    from webstore.catalog import Coupon, Discount
    from webstore.repo.account import AccountRepository

    services = get_services()
    accounts = AccountRepository(demo.table)
    made = accounts.create_coupon(
        A, lambda i: Coupon(id=i, code="PLUGIN5", discount=Discount(percentage=Decimal(5)), created_at=NOW)
    )
    save_element(
        services, A, "category", 1, {"name": "Ranks", "slug": "ranks", "tiered": True},
        actor=STAFF, revision=catalog_revision(services, A), now=NOW,
    )  # fmt: skip
    import_catalog(demo.table, parse_catalog(demo_catalog_data()))
    assert accounts.coupon(A, made.id).code == "PLUGIN5"
    delete_element(
        services, A, "coupon", made.id, actor=STAFF, revision=catalog_revision(services, A), now=NOW
    )
    with pytest.raises(NotFound):
        accounts.coupon(A, made.id)
