"""One way to change the catalog: the panel's edit and `webstore import` write each entity
through the same per-entity change (webstore.catalog_changes), so the same entity made either
way is the same record, and a rule of a change holds on import too."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from tests.support.demo import DemoStore
from webstore import keys
from webstore.admin.catalog import catalog_revision, save_element
from webstore.catalog_export import catalog_document, export_catalog
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.errors import Conflict, Invalid
from webstore.repo.account import AccountRepository
from webstore.repo.catalog_edits import CatalogEdits
from webstore.services import get_services

A = 1
STAFF = "owner@example.com"
NOW = datetime(2099, 11, 23, 22, 0, tzinfo=UTC)
LATER = datetime(2099, 11, 24, 9, 30, tzinfo=UTC)
EMERALD = {
    "category_id": 2,
    "name": "Emerald",
    "price": "1.50",
    "description": "<p>Shiny</p>",
    "commands": [{"server_id": 1, "command": "give {username} emerald 1", "require_online": True}],
}
COUPON = {"code": "SPRING15", "discount": {"type": "percentage", "percentage": "15"}, "note": "spring"}


def _record(demo: DemoStore, pk: str, sk: str, element_id: int) -> dict[str, Any]:
    """The stored item without what names it (its key and id)."""
    item = demo.table.get({"PK": pk, "SK": sk}, consistent=True)
    assert item is not None, sk
    assert item["id"] == element_id
    return {k: v for k, v in item.items() if k not in ("PK", "SK", "id", "GSI1SK")}


def _document(demo: DemoStore) -> dict[str, Any]:
    """What `webstore export` writes, at the store's revision."""
    return catalog_document(export_catalog(demo.table, A))


def _stamped(values: dict[str, Any], element_id: int, *times: datetime) -> dict[str, Any]:
    return {
        **values,
        "id": element_id,
        **dict(zip(("created_at", "updated_at"), (t.isoformat() for t in times), strict=False)),
    }


def test_a_package_made_and_changed_in_the_panel_or_by_import_is_the_same_record(demo: DemoStore) -> None:
    services = get_services()
    made = save_element(
        services, A, "package", None, EMERALD, actor=STAFF, revision=catalog_revision(services, A), now=NOW
    ).element_id
    assert made is not None
    twin = made + 1
    document = _document(demo)
    document["packages"].append(_stamped(EMERALD, twin, NOW, NOW))
    result = import_catalog(demo.table, parse_catalog(document), now=NOW)
    assert result.changes.added == {"package": [twin]}
    pk = keys.store_pk(A)
    assert _record(demo, pk, keys.package_sk(twin), twin) == _record(demo, pk, keys.package_sk(made), made)

    # Both changed the same way: the panel's save, the import of a file with the same change.
    dearer = {**EMERALD, "price": "2.50", "image": "https://img.example/emerald.png"}
    save_element(
        services, A, "package", made, dearer, actor=STAFF, revision=catalog_revision(services, A), now=LATER
    )
    document = _document(demo)
    document["packages"] = [
        _stamped(dearer, twin, NOW, LATER) if p["id"] == twin else p for p in document["packages"]
    ]
    result = import_catalog(demo.table, parse_catalog(document), now=LATER)
    assert result.changes.changed == {"package": [twin]}
    assert _record(demo, pk, keys.package_sk(twin), twin) == _record(demo, pk, keys.package_sk(made), made)


def test_a_coupon_made_in_the_panel_or_by_import_is_the_same_record(demo: DemoStore) -> None:
    services = get_services()
    made = save_element(
        services, A, "coupon", None, COUPON, actor=STAFF, revision=catalog_revision(services, A), now=NOW
    ).element_id
    assert made is not None
    twin = made + 1
    document = _document(demo)
    document["coupons"].append({**_stamped(COUPON, twin, NOW), "code": "SPRING15B"})
    import_catalog(demo.table, parse_catalog(document), now=NOW)
    account = keys.account_pk(A)
    ours, theirs = (
        _record(demo, account, keys.coupon_sk(made), made),
        _record(demo, account, keys.coupon_sk(twin), twin),
    )
    assert theirs.pop("code") == "SPRING15B" and ours.pop("code") == "SPRING15"
    assert theirs == ours
    # Each found by its code, as the basket finds it.
    accounts = AccountRepository(demo.table)
    assert (accounts.coupon_by_code(A, "spring15").id, accounts.coupon_by_code(A, "SPRING15B").id) == (
        made,
        twin,
    )


def test_a_card_keeps_its_number_on_import_as_in_the_panel(demo: DemoStore) -> None:
    services = get_services()
    card = CatalogEdits(demo.table).gift_cards(A)[0]
    renumbered = {**card.model_dump(mode="json", exclude={"id"}), "card_number": "9999-0000-1111"}
    with pytest.raises(Invalid) as in_panel:
        save_element(
            services, A, "gift_card", card.id, renumbered, actor=STAFF,
            revision=catalog_revision(services, A), now=NOW,
        )  # fmt: skip
    revision = catalog_revision(services, A)
    document = _document(demo)
    document["gift_cards"] = [
        {**c, "card_number": "9999-0000-1111"} if c["id"] == card.id else c for c in document["gift_cards"]
    ]
    document["packages"].append(_stamped(EMERALD, 900, NOW, NOW))  # a change that must not land either
    with pytest.raises(Invalid) as on_import:
        import_catalog(demo.table, parse_catalog(document), now=NOW)
    assert (
        str(on_import.value)
        == str(in_panel.value)
        == ("card_number: a card keeps its number (void it and add a new card)")
    )
    assert catalog_revision(services, A) == revision
    assert (
        next(c for c in CatalogEdits(demo.table).gift_cards(A) if c.id == card.id).card_number
        == card.card_number
    )
    assert demo.table.get({"PK": keys.store_pk(A), "SK": keys.package_sk(900)}, consistent=True) is None


def test_a_coupon_code_taken_outside_the_file_is_refused_on_import(demo: DemoStore) -> None:
    """A coupon the operator interface made is not the file's: a file bringing another coupon
    with its code is refused by the change's own condition (codes are free or refused), where
    the import used to hand the code over."""
    from decimal import Decimal

    from webstore.catalog import Coupon, Discount

    services = get_services()
    AccountRepository(demo.table).create_coupon(
        A, lambda i: Coupon(id=i, code="PLUGIN5", discount=Discount(percentage=Decimal(5)), created_at=NOW)
    )
    document = _document(demo)
    document["coupons"] = [c for c in document["coupons"] if c["code"] != "PLUGIN5"]
    document["coupons"].append({**_stamped(COUPON, 700, NOW), "code": "plugin5"})
    revision = catalog_revision(services, A)
    with pytest.raises(Conflict) as on_import:
        import_catalog(demo.table, parse_catalog(document), now=NOW)
    assert str(on_import.value) == "A coupon with code 'plugin5' already exists"
    assert catalog_revision(services, A) == revision
    assert AccountRepository(demo.table).coupon_by_code(A, "PLUGIN5").code == "PLUGIN5"


def test_a_server_made_and_changed_in_the_panel_or_by_import_is_the_same_record(demo: DemoStore) -> None:
    """The panel's server and the import's are written by the same change (the server, its
    secret's lookup item); a re-import without a secret keeps the panel's secret."""
    from webstore.admin.servers import create_server, rename_server

    services = get_services()
    issued = create_server(services, A, "Lobby", actor=STAFF, now=NOW)
    made, twin = issued.server_id, issued.server_id + 1
    document = _document(demo)
    document["servers"].append({"id": twin, "name": "Lobby", "next_check": 60, "secret": "twin-secret"})
    result = import_catalog(demo.table, parse_catalog(document), now=NOW)
    assert result.changes.added == {"server": [twin]}
    account = keys.account_pk(A)
    ours, theirs = (
        _record(demo, account, keys.server_sk(made), made),
        _record(demo, account, keys.server_sk(twin), twin),
    )
    assert theirs.pop("secret_hash") == keys.hash_secret("twin-secret")
    assert ours.pop("secret_hash") == keys.hash_secret(issued.secret)
    assert theirs == ours
    for secret, server_id in ((issued.secret, made), ("twin-secret", twin)):
        lookup = demo.table.get(keys.secret_key(keys.hash_secret(secret)), consistent=True)
        assert lookup is not None
        assert {k: v for k, v in lookup.items() if k not in ("PK", "SK")} == {
            "entity": "secret",
            "account_id": A,
            "server_id": server_id,
        }

    # Renamed both ways; the export (no secrets) re-imported keeps both secrets.
    rename_server(services, A, made, "Hub", actor=STAFF, now=LATER)
    document = _document(demo)
    document["servers"] = [{**s, "name": "Hub"} if s["id"] == twin else s for s in document["servers"]]
    result = import_catalog(demo.table, parse_catalog(document), now=LATER)
    assert result.changes.changed == {"server": [twin]}
    assert result.server_secrets[made] is None and result.server_secrets[twin] is None
    assert _record(demo, account, keys.server_sk(made), made)["name"] == "Hub"
    assert {k: v for k, v in _record(demo, account, keys.server_sk(twin), twin).items()} == {
        **theirs,
        "name": "Hub",
        "secret_hash": keys.hash_secret("twin-secret"),
    }
    assert demo.table.get(keys.secret_key(keys.hash_secret(issued.secret)), consistent=True) is not None


def test_a_webhook_endpoint_made_in_the_panel_or_by_import_is_the_same_record(demo: DemoStore) -> None:
    """Both sealed the same way (the stored secret opens to the one issued or given)."""
    from webstore.admin.webhooks import add_endpoint
    from webstore.repo.webhooks import WebhookRepository

    services = get_services()
    url = "https://hooks.example.com/store"
    issued = add_endpoint(services, A, url, ["payment.completed"], actor=STAFF, now=NOW)
    made, twin = issued.endpoint_id, issued.endpoint_id + 1
    document = _document(demo)
    document.setdefault("webhooks", []).append(
        {"id": twin, "url": url, "events": ["payment.completed"], "secret": "twin-signing-secret"}
    )
    result = import_catalog(demo.table, parse_catalog(document), now=NOW, box=services.secrets)
    assert result.changes.added == {"webhook": [twin]}
    account = keys.account_pk(A)
    ours, theirs = (
        _record(demo, account, keys.webhook_sk(made), made),
        _record(demo, account, keys.webhook_sk(twin), twin),
    )
    assert ours.pop("secret") != issued.secret and theirs.pop("secret") != "twin-signing-secret"
    assert theirs == ours
    opened = {e.id: e.secret for e in WebhookRepository(demo.table, services.secrets).endpoints(A)}
    assert (opened[made], opened[twin]) == (issued.secret, "twin-signing-secret")
