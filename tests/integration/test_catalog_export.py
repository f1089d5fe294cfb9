"""Issue 16: `webstore export` writes the store back as a catalog file that re-imports to the same
store (the table's items unchanged, a second export byte-identical); secrets stay out unless
`--with-secrets`, and a re-import of a file without them keeps the stored ones. Through the CLI
as a subprocess against a DynamoDB endpoint on loopback, as `webstore import`'s tests."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest

from tests.support.demo import demo_catalog_data
from tests.support.localstripe import TEST_PUBLISHABLE_KEY, TEST_SECRET_KEY, TEST_WEBHOOK_SECRET
from webstore.catalog_export import catalog_text, export_catalog
from webstore.catalog_import import SecretMissing, import_catalog, parse_catalog
from webstore.db import Table, create_table
from webstore.sealing import open_sealed
from webstore.secret_box import SecretBox, secret_box
from webstore.settings import get_settings

ROOT = Path(__file__).resolve().parents[2]
TABLE_NAME = "export-table"
SIGNING_SECRET = "whsec-exported-0123456789"
BOX = SecretBox(lambda: "k" * 64)


def full_store() -> dict[str, Any]:
    """The demo catalog with what it lacks: a webhook endpoint and Stripe keys (sealed secrets)."""
    data = demo_catalog_data()
    data["webhooks"] = [
        {
            "id": 1,
            "url": "https://hooks.example.com/w",
            "events": ["payment.completed"],
            "secret": SIGNING_SECRET,
        }
    ]
    data["gateways"] = {
        "stripe": {
            "publishable_key": TEST_PUBLISHABLE_KEY,
            "secret_key": TEST_SECRET_KEY,
            "webhook_secret": TEST_WEBHOOK_SECRET,
        },
        "sandbox": True,
    }
    return data


@pytest.fixture
def endpoint() -> Iterator[str]:
    """A moto server on loopback: what the tools' `--dynamodb-endpoint` talks to."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    url = f"http://{host}:{port}"
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=url)
    create_table(client, TABLE_NAME)
    yield url
    client.delete_table(TableName=TABLE_NAME)  # the server's backend outlives it in this process
    server.stop()


def cli(endpoint: str, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")]),
        "AWS_ACCESS_KEY_ID": "local",
        "AWS_SECRET_ACCESS_KEY": "local",
    }
    target = ["--table", TABLE_NAME, "--region", "us-east-1", "--dynamodb-endpoint", endpoint]
    return subprocess.run(
        [sys.executable, "-m", "infra.cli", *argv, *target],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )


def table_items(endpoint: str) -> list[dict[str, Any]]:
    """Every item but the audit log and the catalog revision (every import adds to them by
    design), webhook signing
    secrets opened (each import seals them afresh: same secret, new ciphertext)."""
    client = boto3.client(
        "dynamodb",
        region_name="us-east-1",
        endpoint_url=endpoint,
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    items = client.scan(TableName=TABLE_NAME)["Items"]
    kept = [i for i in items if not (i["PK"]["S"].startswith("AUDIT#") or i["SK"]["S"] == "CATALOGREV")]
    box = secret_box(get_settings())
    for item in kept:
        if item.get("entity") == {"S": "webhook_endpoint"}:
            item["secret"] = {"S": open_sealed(box, item["secret"]["S"])}
    return sorted(kept, key=lambda i: (i["PK"]["S"], i["SK"]["S"]))


def test_export_then_import_changes_nothing_and_exports_the_same_bytes(endpoint: str, tmp_path: Path) -> None:
    source = tmp_path / "store.json"
    source.write_text(json.dumps(full_store()))
    assert cli(endpoint, "import", str(source)).returncode == 0
    before = table_items(endpoint)

    exported = tmp_path / "exported.json"
    first = cli(endpoint, "export", str(exported), "--store", "1")
    assert first.returncode == 0, first.stderr
    text = exported.read_text()
    document = json.loads(text)
    assert document["$schema"] == "./catalog.schema.json"
    # Secrets left out: the hashed ones (checkout key, server secrets) and the sealed ones.
    assert "checkout_api_key" not in document["store"]
    assert all("secret" not in server for server in document["servers"])
    assert document["webhooks"] == [
        {"id": 1, "url": "https://hooks.example.com/w", "events": ["payment.completed"]}
    ]
    assert document["gateways"] == {"stripe": {"publishable_key": TEST_PUBLISHABLE_KEY}, "sandbox": True}
    for secret in (SIGNING_SECRET, TEST_SECRET_KEY, TEST_WEBHOOK_SECRET):
        assert secret not in text

    again = cli(endpoint, "import", str(exported))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == f"Imported store 1 into {TABLE_NAME}: no changes"
    assert "checkout_api_key   (unchanged; only its hash is stored)" in again.stdout
    assert any(i.get("secret") == {"S": SIGNING_SECRET} for i in before)
    assert table_items(endpoint) == before  # kept: key hashes, sealed secrets, validation, balances

    second = tmp_path / "second.json"
    assert cli(endpoint, "export", str(second), "--store", "1").returncode == 0
    assert second.read_bytes() == exported.read_bytes()
    to_stdout = cli(endpoint, "export", "--store", "1")
    assert to_stdout.stdout == text


def test_with_secrets_the_export_restores_the_store_into_an_empty_table(
    endpoint: str, tmp_path: Path
) -> None:
    source = tmp_path / "store.json"
    source.write_text(json.dumps(full_store()))
    assert cli(endpoint, "import", str(source)).returncode == 0
    exported = tmp_path / "exported.json"
    result = cli(endpoint, "export", str(exported), "--store", "1", "--with-secrets")
    assert result.returncode == 0, result.stderr
    assert "keep the file private" in result.stderr
    assert exported.stat().st_mode & 0o077 == 0
    document = json.loads(exported.read_text())
    assert document["webhooks"][0]["secret"] == SIGNING_SECRET
    assert document["gateways"]["stripe"]["secret_key"] == TEST_SECRET_KEY
    assert document["gateways"]["stripe"]["webhook_secret"] == TEST_WEBHOOK_SECRET
    assert parse_catalog(document).store.public_token is not None


def test_a_file_without_secrets_into_a_store_without_them_is_refused_naming_the_field(
    table: Table, tmp_path: Path
) -> None:
    import_catalog(table, parse_catalog(full_store()), box=BOX)
    document = json.loads(catalog_text(export_catalog(table, 1)))
    document["webhooks"].append({"id": 2, "url": "https://hooks.example.com/new"})
    with pytest.raises(SecretMissing, match=r"webhooks\[1\] \(id 2\)\.secret: required"):
        import_catalog(table, parse_catalog(document), box=BOX)

    document = json.loads(catalog_text(export_catalog(table, 1)))
    document["store"] = {**document["store"], "id": 2, "name": "Elsewhere"}
    del document["store"]["public_token"]
    document["webhooks"] = []
    with pytest.raises(SecretMissing, match=r"gateways\.stripe\.secret_key: required"):
        import_catalog(table, parse_catalog(document), box=BOX)
    assert table.get({"PK": "STORE#2", "SK": "5STORE"}) is None  # nothing written


def test_the_cli_says_in_one_line_what_is_wrong(endpoint: str, tmp_path: Path) -> None:
    missing = cli(endpoint, "export", "--store", "7")
    assert missing.returncode == 2
    assert missing.stderr.strip() == (
        f"webstore export: table {TABLE_NAME} in us-east-1 has no store 7: check --store"
    )
    no_store = cli(endpoint, "export")
    assert no_store.returncode == 2
    assert no_store.stderr.strip() == "webstore export: name the store: --store <id>"
