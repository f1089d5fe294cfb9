"""Issue 15 item 9: re-importing makes the store's catalog entities equal to the file (what left
the file is disabled or removed; payments, players and operator-made coupons are not touched),
prints what changed, and `--dry-run` only prints it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.support.demo import demo_catalog_data
from webstore import keys
from webstore.catalog import Coupon, Discount
from webstore.catalog_import import WebhookEntry, import_catalog, parse_catalog, preview_import
from webstore.db import Table, create_table
from webstore.repo.account import AccountRepository
from webstore.repo.store import StoreRepository

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT = 1


def trimmed() -> dict[str, Any]:
    """The demo catalog without package 12, category 4, page 2, coupon 3, the sale, goal 1,
    server 2 (and the command that used it), with a new package and package 10 repriced."""
    data = demo_catalog_data()
    data["packages"] = [p for p in data["packages"] if p["id"] != 12]
    for package in data["packages"]:
        package["commands"] = [c for c in package["commands"] if c["server_id"] != 2]
        if package["id"] == 10:
            package["price"] = "3.00"
    data["packages"].append({"id": 30, "category_id": 2, "name": "Emerald", "price": "1.00"})
    data["categories"] = [c for c in data["categories"] if c["id"] != 4]
    data["pages"] = [p for p in data["pages"] if p["id"] != 2]
    data["coupons"] = [c for c in data["coupons"] if c["id"] != 3]
    data["sales"] = []
    data["community_goals"] = []
    data["servers"] = [s for s in data["servers"] if s["id"] != 2]
    return data


def test_what_left_the_file_is_disabled_or_removed(table: Table) -> None:
    import_catalog(table, parse_catalog(demo_catalog_data()))
    accounts = AccountRepository(table)
    server_2_hash = accounts.server(ACCOUNT, 2).secret_hash  # type: ignore[union-attr]
    table.update(
        keys.key(keys.store_pk(ACCOUNT), keys.goal_sk(1)),
        "SET #c = :c",
        names={"#c": "current"},
        values={":c": 40},
    )
    operator_coupon = Coupon(
        id=50, code="OPERATOR", discount=Discount(percentage=5), created_at=datetime(2025, 1, 1, tzinfo=UTC)
    )
    accounts.create_coupon(ACCOUNT, lambda new_id: operator_coupon.model_copy(update={"id": new_id}))

    result = import_catalog(table, parse_catalog(trimmed()))

    assert result.changes.summary() == (
        "+1 package, ~1 package, -1 package, -1 category, -1 page, -1 coupon, -1 sale, -1 goal, -1 server"
    )
    view = StoreRepository(table).operator_view(ACCOUNT)
    packages = {p.id: p for p in view.packages}
    assert packages[12].disabled and not packages[10].disabled and packages[10].price == 3
    assert 30 in packages
    assert 4 not in {c.id for c in view.categories}
    assert view.store.sales == []
    goal = StoreRepository(table).goal(ACCOUNT, 1)
    assert goal.status == "disabled" and goal.current == 40
    assert [p.id for p in StoreRepository(table).pages(ACCOUNT).pages] == [1]
    assert table.get(accounts.coupon_by_code_key(ACCOUNT, "BIG5")) is None
    assert table.get(keys.key(keys.account_pk(ACCOUNT), keys.coupon_sk(3))) is None
    assert accounts.coupon_by_code(ACCOUNT, "OPERATOR").code == "OPERATOR"  # not the file's: kept
    assert accounts.coupon_count(ACCOUNT) == 3
    assert set(accounts.servers(ACCOUNT)) == {1}
    assert table.get(keys.secret_key(server_2_hash)) is None  # its plugin is refused from now on


def test_an_unchanged_file_changes_nothing_and_a_dropped_entity_is_removed_once(table: Table) -> None:
    first = import_catalog(table, parse_catalog(demo_catalog_data()))
    assert first.changes.summary().startswith("+7 packages, +4 categories, +2 pages, +3 coupons, +1 sale")
    assert import_catalog(table, parse_catalog(demo_catalog_data())).changes.summary() == "no changes"
    import_catalog(table, parse_catalog(trimmed()))
    assert import_catalog(table, parse_catalog(trimmed())).changes.summary() == "no changes"
    back = import_catalog(table, parse_catalog(demo_catalog_data())).changes.summary()
    assert back == "+1 category, +1 page, +1 coupon, +1 sale, +1 server, ~2 packages, ~1 goal, -1 package"


def test_preview_writes_nothing(table: Table) -> None:
    import_catalog(table, parse_catalog(demo_catalog_data()))
    before = table.client.scan(TableName=table.name)["Items"]
    changes = preview_import(table, parse_catalog(trimmed()))
    assert changes.removed["package"] == [12]
    assert table.client.scan(TableName=table.name)["Items"] == before


@pytest.fixture
def dynamodb_endpoint() -> Iterator[str]:
    """A moto server on loopback: what `webstore import --dynamodb-endpoint` talks to."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    create_table(client, "cli-table")
    yield endpoint
    client.delete_table(TableName="cli-table")  # moto's state outlives its server in this process
    server.stop()


def cli_import(endpoint: str, catalog: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")]),
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
    }
    command = ["import", str(catalog), "--table", "cli-table", "--region", "us-east-1"]
    return subprocess.run(
        [sys.executable, "-m", "infra.cli", *command, "--dynamodb-endpoint", endpoint, *extra],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def test_the_cli_prints_the_summary_and_dry_run_writes_nothing(
    dynamodb_endpoint: str, tmp_path: Path
) -> None:
    catalog = tmp_path / "store.json"
    catalog.write_text(json.dumps(demo_catalog_data()))
    first = cli_import(dynamodb_endpoint, catalog)
    assert first.returncode == 0, first.stderr
    assert first.stdout.startswith("Imported store 1 into cli-table: +7 packages, +4 categories")

    catalog.write_text(json.dumps(trimmed()))
    summary = (
        "+1 package, ~1 package, -1 package, -1 category, -1 page, -1 coupon, -1 sale, -1 goal, -1 server"
    )
    dry = cli_import(dynamodb_endpoint, catalog, "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert dry.stdout == f"Would change store 1 in cli-table: {summary} (dry run)\n"
    assert cli_import(dynamodb_endpoint, catalog, "--dry-run").stdout == dry.stdout  # nothing was written

    real = cli_import(dynamodb_endpoint, catalog)
    assert real.returncode == 0, real.stderr
    assert real.stdout.splitlines()[0] == f"Imported store 1 into cli-table: {summary}"
    assert cli_import(dynamodb_endpoint, catalog, "--dry-run").stdout.endswith(": no changes (dry run)\n")


def test_the_cli_refuses_a_file_older_than_the_store_with_the_difference_and_force_applies_it(
    dynamodb_endpoint: str, tmp_path: Path
) -> None:
    catalog = tmp_path / "store.json"
    catalog.write_text(json.dumps(demo_catalog_data()))
    assert cli_import(dynamodb_endpoint, catalog).returncode == 0  # a new store: revision 1
    exported = {**demo_catalog_data(), "revision": 1}  # as `webstore export` wrote it then
    newer = {**demo_catalog_data(), "revision": 1}
    next(p for p in newer["packages"] if p["id"] == 11)["price"] = "7.77"
    catalog.write_text(json.dumps(newer))
    assert cli_import(dynamodb_endpoint, catalog).returncode == 0  # the store moves to revision 2

    catalog.write_text(json.dumps(exported))
    refused = cli_import(dynamodb_endpoint, catalog)
    assert refused.returncode == 2 and refused.stdout == ""
    lines = refused.stderr.splitlines()
    assert lines[0].startswith(
        f"webstore import: {catalog}: the file is at catalog revision 1, the store at 2"
    )
    assert lines[0].endswith("Importing it would: ~1 package")
    assert lines[1].startswith('  ~ package 11 "') and '"7.77" → "' in lines[1]
    assert f"`webstore import {catalog} --force`" in lines[2]
    forced = cli_import(dynamodb_endpoint, catalog, "--force")
    assert forced.returncode == 0, forced.stderr
    assert forced.stdout.startswith("Imported store 1 into cli-table: ~1 package")


def test_webhooks_serve_added_survive_a_file_without_them(table: Table) -> None:
    """`webstore serve --webhook URL` adds an endpoint no file has: importing the file again (as
    `webstore import --local` does) keeps it; an endpoint the file brought and dropped goes."""
    from webstore.secret_box import SecretBox

    box = SecretBox(lambda: "k" * 64)
    data = demo_catalog_data()
    data["webhooks"] = [{"id": 1, "url": "https://hooks.example.com/file", "secret": "whsec-file-0123456789"}]
    served = parse_catalog(data)
    served.webhooks.append(
        WebhookEntry(id=2, url="http://127.0.0.1:9000/hook", secret="whsec-local-0123456789")
    )
    import_catalog(table, served, box=box, pinned_webhooks={2})

    result = import_catalog(table, parse_catalog(demo_catalog_data()), box=box)

    assert result.changes.removed == {"webhook": [1]}
    left = table.client.query(
        TableName=table.name,
        KeyConditionExpression="PK = :pk AND begins_with(SK, :sk)",
        ExpressionAttributeValues={":pk": {"S": keys.account_pk(ACCOUNT)}, ":sk": {"S": keys.WEBHOOK_PREFIX}},
    )["Items"]
    assert [int(i["id"]["N"]) for i in left] == [2]
    again = import_catalog(table, parse_catalog(demo_catalog_data()), box=box)
    assert again.changes.summary() == "no changes"


def test_the_cli_prints_a_refused_change_and_exits_2(dynamodb_endpoint: str, tmp_path: Path) -> None:
    """A rule of a change (webstore.catalog_changes) refuses the file as the panel refuses the form."""
    catalog = tmp_path / "store.json"
    catalog.write_text(json.dumps(demo_catalog_data()))
    assert cli_import(dynamodb_endpoint, catalog).returncode == 0
    renumbered = demo_catalog_data()
    renumbered["gift_cards"][0]["card_number"] = "9999-0000-1111"
    catalog.write_text(json.dumps(renumbered))
    refused = cli_import(dynamodb_endpoint, catalog)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr == (
        f"webstore import: {catalog}: card_number: a card keeps its number (void it and add a new card)\n"
    )
