"""The webhook key in Secrets Manager (as the stack keeps it), read through Powertools and
cached; `webstore import` seals the catalog's webhook signing secrets with it (moto for AWS)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path
from typing import Any

import boto3
import pytest

from infra.cli import main
from tests.support.demo import demo_catalog_data
from tests.support.environment import TABLE
from webstore.db import Table
from webstore.keys import STORE_ITEM, account_pk, store_pk, webhook_sk
from webstore.repo.account import AccountRepository
from webstore.sealing import open_sealed, seal
from webstore.secret_box import SecretBox, secret_box
from webstore.settings import Settings

REGION = "us-east-1"
SIGNING_SECRET = "whsec-imported-0123456789"


@pytest.fixture
def key_secret(table: Table) -> str:
    client = boto3.client("secretsmanager", region_name=REGION)
    return client.create_secret(Name="webstore-test/webhook-key", SecretString="k" * 64)["ARN"]


def catalog_file(tmp_path: Path, webhooks: list[dict[str, Any]]) -> Path:
    data = demo_catalog_data()
    data["webhooks"] = webhooks
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(data))
    return path


def stored_webhook(table: Table) -> dict[str, Any] | None:
    store_id = demo_catalog_data()["store"]["id"]
    return table.get({"PK": account_pk(store_id), "SK": webhook_sk(1)})


def test_the_key_is_read_from_secrets_manager_once_and_cached(key_secret: str) -> None:
    box = secret_box(Settings(webhook_key_secret=key_secret, region=REGION))
    sealed = seal(box, SIGNING_SECRET)
    # Gone from Secrets Manager: the cached key still opens what it sealed (Powertools max_age).
    boto3.client("secretsmanager", region_name=REGION).delete_secret(
        SecretId=key_secret, ForceDeleteWithoutRecovery=True
    )
    assert open_sealed(box, sealed) == SIGNING_SECRET
    assert open_sealed(SecretBox(lambda: "k" * 64), sealed) == SIGNING_SECRET


def test_import_seals_webhook_secrets_with_the_stage_key(
    key_secret: str, table: Table, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = catalog_file(tmp_path, [{"id": 1, "url": "https://hooks.example.com/w", "secret": SIGNING_SECRET}])
    argv = ["import", str(path), "--table", TABLE, "--region", REGION, "--webhook-key-secret", key_secret]
    assert main(argv) == 0
    item = stored_webhook(table)
    assert item is not None
    assert SIGNING_SECRET not in json.dumps(item, default=str)
    endpoint = AccountRepository.webhook_endpoint(item, partial(open_sealed, SecretBox(lambda: "k" * 64)))
    assert endpoint.secret == SIGNING_SECRET
    assert str(endpoint.url) == "https://hooks.example.com/w"


def test_import_of_webhooks_without_a_key_is_refused_and_writes_nothing(
    table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("WEBSTORE_WEBHOOK_KEY", raising=False)
    path = catalog_file(tmp_path, [{"id": 1, "url": "https://hooks.example.com/w", "secret": SIGNING_SECRET}])
    assert main(["import", str(path), "--table", TABLE, "--region", REGION]) == 2
    assert "--webhook-key-secret" in capsys.readouterr().err
    store_id = demo_catalog_data()["store"]["id"]
    assert table.get({"PK": store_pk(store_id), "SK": STORE_ITEM}) is None
    assert table.query(account_pk(store_id))[0] == []


def test_a_catalog_without_webhooks_needs_no_key(
    table: Table, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("WEBSTORE_WEBHOOK_KEY", raising=False)
    assert main(["import", str(catalog_file(tmp_path, [])), "--table", TABLE, "--region", REGION]) == 0
    assert stored_webhook(table) is None
