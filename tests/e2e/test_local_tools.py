"""The `webstore` tools against a running `webstore serve` (`--local <credentials file>`), as
processes, as a user runs them (issue 15 item 5, issue 12 build item 3)."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest

from tests.e2e.conftest import ROOT, WebhookReceiver, free_port, receiving, wait_for_port
from tests.support.local_stack import serving
from tests.support.local_stack import webstore_tool as webstore
from webstore import keys
from webstore.attribute_values import serialize

pytestmark = pytest.mark.e2e

DEMO = ROOT / "shared" / "webstore" / "demo" / "store.json"
TOOL_KEYS = {
    "dynamodb_endpoint", "region", "table", "aws_access_key_id", "aws_secret_access_key",
    "storefront_url", "operator_url", "webhook_key",
}  # fmt: skip


@dataclass
class Stack:
    process: subprocess.Popen[bytes]
    credentials_file: Path
    credentials: dict[str, Any]


@pytest.fixture(scope="module")
def receiver() -> Iterator[WebhookReceiver]:
    yield from receiving(WebhookReceiver(free_port(), secret="tools-webhook-secret"))


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory, receiver: WebhookReceiver) -> Iterator[Stack]:
    """A stack of this module's own (the tests re-import its catalog), its clock stopped: time
    moves only with `clock run --until`."""
    creds_file = tmp_path_factory.mktemp("tools") / "credentials.json"
    storefront, operator = free_port(), free_port()
    options = ("--clock-interval", "0", "--webhook", f"{receiver.url}#{receiver.secret}")
    with serving(storefront, operator, creds_file, *options) as process:
        wait_for_port(storefront, process)
        wait_for_port(operator, process)
        yield Stack(process, creds_file, json.loads(creds_file.read_text()))


def test_the_credentials_file_says_how_to_reach_the_embedded_table(stack: Stack) -> None:
    creds = stack.credentials
    assert set(creds) >= TOOL_KEYS
    assert creds["dynamodb_endpoint"].startswith("http://127.0.0.1:")
    assert (creds["region"], creds["table"]) == ("us-east-1", "webstore")
    assert creds["plugin_url"] == creds["operator_url"]
    assert creds["headless_url"].startswith(creds["storefront_url"] + "/api/accounts/")
    assert oct(stack.credentials_file.stat().st_mode & 0o777) == "0o600"


def test_the_endpoint_and_the_interfaces_share_one_table(stack: Stack) -> None:
    """A basket made over HTTP (serve's in-process table) is read through the endpoint."""
    creds = stack.credentials
    with httpx.Client(timeout=10) as http:
        basket = http.post(f"{creds['headless_url']}/baskets", json={"username": "Steve"})
        assert basket.status_code in (200, 201), basket.text
    client = boto3.client(
        "dynamodb",
        endpoint_url=creds["dynamodb_endpoint"],
        region_name=creds["region"],
        aws_access_key_id=creds["aws_access_key_id"],
        aws_secret_access_key=creds["aws_secret_access_key"],
    )
    assert client.describe_table(TableName=creds["table"])["Table"]["TableStatus"] == "ACTIVE"
    ident = basket.json()["data"]["ident"]
    found = client.get_item(TableName=creds["table"], Key=serialize(keys.basket_key(ident))).get("Item")
    assert found, "the basket written over HTTP is in the table the endpoint serves"


def test_import_local_changes_what_the_running_stack_sells(stack: Stack, tmp_path: Path) -> None:
    catalog = json.loads(DEMO.read_text())
    (sword,) = [p for p in catalog["packages"] if p["id"] == 10]
    sword["name"] = "Netherite Sword"
    edited = tmp_path / "store.json"
    edited.write_text(json.dumps(catalog))
    run = webstore("import", str(edited), "--local", str(stack.credentials_file))
    assert run.returncode == 0, run.stderr
    assert "Imported store 1 into webstore" in run.stdout
    with httpx.Client(timeout=10) as http:
        categories = http.get(
            f"{stack.credentials['headless_url']}/categories", params={"includePackages": 1}
        ).json()["data"]
    names = {p["id"]: p["name"] for c in categories for p in c["packages"] or []}
    assert names[10] == "Netherite Sword"


def test_export_local_writes_the_served_store_back_and_it_reimports_unchanged(
    stack: Stack, receiver: WebhookReceiver, tmp_path: Path
) -> None:
    """`webstore export --local` finds the served store by the credentials file; its webhook
    secret (serve --webhook) only with --with-secrets; importing the export changes nothing."""
    exported = tmp_path / "exported.json"
    run = webstore("export", str(exported), "--local", str(stack.credentials_file))
    assert run.returncode == 0, run.stderr
    document = json.loads(exported.read_text())
    assert document["store"]["public_token"] == stack.credentials["public_token"]
    assert [w["url"] for w in document["webhooks"]] == [receiver.url]
    assert "secret" not in document["webhooks"][0] and receiver.secret not in exported.read_text()
    again = webstore("import", str(exported), "--local", str(stack.credentials_file))
    assert again.returncode == 0, again.stderr
    assert again.stdout.splitlines()[0] == "Imported store 1 into webstore: no changes"

    with_secrets = webstore("export", "--local", str(stack.credentials_file), "--with-secrets")
    assert with_secrets.returncode == 0, with_secrets.stderr
    assert json.loads(with_secrets.stdout)["webhooks"][0]["secret"] == receiver.secret


def test_clock_run_local_plays_a_month_on_the_running_stack(stack: Stack, receiver: WebhookReceiver) -> None:
    """A manual VIP payment (nothing saved to charge) ends at its period's end: `clock run
    --until` a month later ends it on the running stack, prints it, and the store's webhook
    receiver gets `recurring-payment.ended`, signed with its secret."""
    creds = stack.credentials
    headers = {"X-Tebex-Secret": creds["server_secret"]}
    with httpx.Client(timeout=10) as http:
        made = http.post(
            f"{creds['plugin_url']}/payments",
            json={"ign": "Clockwork", "packages": [{"id": 1}], "price": 4.99, "note": "clock e2e"},
            headers=headers,
        )
        assert made.status_code == 200, made.text
    reference = made.json()["txn_id"]
    now = datetime.now(UTC)
    early = webstore("clock", "run", "--until", now.isoformat(), "--local", str(stack.credentials_file))
    assert early.returncode == 0, early.stderr
    assert reference not in early.stdout
    later = (now + timedelta(days=32)).isoformat()
    run = webstore("clock", "run", "--until", later, "--local", str(stack.credentials_file))
    assert run.returncode == 0, run.stderr
    lines = run.stdout.strip().splitlines()
    assert f"expired: account 1 {reference} (" in run.stdout, run.stdout
    assert lines[-1].startswith("1 item(s) due up to ") and lines[-1].endswith(": 1 expired"), lines
    ended = receiver.wait_for(
        "recurring-payment.ended", lambda e: e["subject"]["reference"] == reference, timeout=20
    )
    assert ended["subject"]["status"]["id"] == 4
    again = webstore("clock", "run", "--until", later, "--local", str(stack.credentials_file))
    assert again.returncode == 0 and again.stdout.strip() == f"Nothing due up to {later}"
    with httpx.Client(timeout=10) as http:
        queue = http.get(f"{creds['plugin_url']}/queue/offline-commands", headers=headers).json()
    expiry = [c for c in queue["commands"] if c["command"] == "lp user {username} parent remove vip"]
    assert [c["player"]["name"] for c in expiry] == ["Clockwork"], queue


def test_a_stopped_stack_is_one_line(tmp_path: Path) -> None:
    creds_file = tmp_path / "credentials.json"
    storefront, operator = free_port(), free_port()
    with serving(storefront, operator, creds_file, "--no-catalog", "--clock-interval", "0") as process:
        wait_for_port(storefront, process)
        creds = json.loads(creds_file.read_text())
        assert set(creds) >= TOOL_KEYS, "written without a catalog too"
    run = webstore("import", str(DEMO), "--local", str(creds_file))
    assert run.returncode != 0
    assert run.stderr.strip().splitlines() == [
        f"webstore import: the local stack is not running (nothing answers at {creds['dynamodb_endpoint']}): "
        f"start `webstore serve --credentials-file {creds_file}` and try again"
    ]


def test_serve_runs_its_clock_and_stops_cleanly_on_ctrl_c(tmp_path: Path) -> None:
    """The background clock ticks every half second without a failure, and Ctrl-C stops serve
    (clock, webhook worker, endpoint, table) with exit code 0."""
    creds_file = tmp_path / "credentials.json"
    storefront, operator = free_port(), free_port()
    with serving(
        storefront,
        operator,
        creds_file,
        "--clock-interval",
        "0.5",
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    ) as process:
        wait_for_port(storefront, process)
        time.sleep(3)  # a few ticks
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=15)
    assert process.returncode == 0
    assert b"clock run failed" not in out + err
    assert b"Traceback" not in err
