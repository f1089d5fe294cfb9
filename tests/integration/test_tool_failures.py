"""Issue 15, item 5: every expected failure of the `webstore` tools is one line that says what to
do, and a non-zero exit. The CLI runs as a subprocess, as a user runs it, against moto's server
(with IAM checks on, for refused credentials and access denied)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import boto3
import pytest

from tests.support.local_stack import ROOT, free_port

DEMO = ROOT / "shared" / "webstore" / "demo" / "store.json"
REGION = "us-east-1"


@dataclass
class Run:
    code: int
    out: str
    err: str

    @property
    def one_line(self) -> str:
        lines = self.err.strip().splitlines()
        assert len(lines) == 1, f"expected one line, got:\n{self.err}"
        assert "Traceback" not in self.err
        return lines[0]


def webstore(*args: str, home: Path, **env: str) -> Run:
    """`webstore …` in a clean environment: no AWS or WEBSTORE_ variables, no AWS config files."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "WEBSTORE_"))}
    clean.update(
        {
            "PYTHONPATH": f"{ROOT}:{ROOT / 'shared'}",
            "HOME": str(home),
            "AWS_CONFIG_FILE": str(home / "no-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(home / "no-credentials"),
            "AWS_EC2_METADATA_DISABLED": "true",
            **env,
        }
    )
    done = subprocess.run(
        [sys.executable, "-m", "infra.cli", *args],
        cwd=ROOT,
        env=clean,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return Run(done.returncode, done.stdout, done.stderr)


@pytest.fixture(scope="module")
def moto_server() -> Iterator[str]:
    """moto's server with IAM checks after the first two calls (they make a user and its key)."""
    port = free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": "2"}
    process = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture(scope="module")
def powerless_keys(moto_server: str) -> dict[str, str]:
    """A real (moto) IAM user with no policy: AWS knows it and allows it nothing."""
    iam = boto3.client(
        "iam", endpoint_url=moto_server, region_name=REGION, aws_access_key_id="x", aws_secret_access_key="x"
    )
    iam.create_user(UserName="nobody")
    key = iam.create_access_key(UserName="nobody")["AccessKey"]
    return {"AWS_ACCESS_KEY_ID": key["AccessKeyId"], "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"]}


def test_no_region(tmp_path: Path) -> None:
    run = webstore("import", str(DEMO), "--table", "webstore", home=tmp_path)
    assert run.code != 0
    assert run.one_line == "webstore import: no AWS region: pass --region <region> or set AWS_REGION"


def test_no_credentials(tmp_path: Path) -> None:
    run = webstore("import", str(DEMO), "--table", "webstore", "--region", REGION, home=tmp_path)
    assert run.code != 0
    assert run.one_line.startswith("webstore import: no AWS credentials: set AWS_PROFILE")
    assert "local DynamoDB endpoint" not in run.one_line
    local = f"http://127.0.0.1:{free_port()}"
    run = webstore(
        "import", str(DEMO), "--table", "t", "--region", REGION, "--dynamodb-endpoint", local, home=tmp_path
    )
    assert run.code != 0
    assert run.one_line.endswith(
        "; a local DynamoDB endpoint takes any, e.g. AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local"
    )


def test_refused_credentials(tmp_path: Path, moto_server: str, powerless_keys: dict[str, str]) -> None:
    run = webstore(
        "clock", "run", "--until", "2030-01-01T00:00:00Z", "--table", "webstore", "--region", REGION,
        "--dynamodb-endpoint", moto_server, home=tmp_path,
        AWS_ACCESS_KEY_ID="AKIANOTKNOWNTOAWS", AWS_SECRET_ACCESS_KEY="wrong",
    )  # fmt: skip
    assert run.code != 0
    assert run.one_line.startswith("webstore clock run: AWS refused your credentials (InvalidClientTokenId)")


def test_access_denied(tmp_path: Path, moto_server: str, powerless_keys: dict[str, str]) -> None:
    run = webstore(
        "import", str(DEMO), "--table", "webstore", "--region", REGION, "--dynamodb-endpoint", moto_server,
        home=tmp_path, **powerless_keys,
    )  # fmt: skip
    assert run.code != 0
    line = run.one_line
    assert line.startswith("webstore import: access denied to table webstore in us-east-1: your AWS identity")
    assert "user/nobody is not authorized to perform: dynamodb:DescribeTable" in line


def test_no_table_then_create_it_when_asked(tmp_path: Path) -> None:
    """moto's server without IAM checks: a missing table is named, with the flag that creates it."""
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer("127.0.0.1", free_port(), verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        keys = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
        where = ("--table", "fresh", "--region", REGION, "--dynamodb-endpoint", endpoint)
        run = webstore("import", str(DEMO), *where, home=tmp_path, **keys)
        assert run.code != 0
        assert run.one_line == (
            "webstore import: table fresh in us-east-1 does not exist: check --table (the stack's "
            "TableName output) and --region, or pass --create-table to create it"
        )
        clock = webstore("clock", "run", "--until", "2030-01-01T00:00:00Z", *where, home=tmp_path, **keys)
        assert clock.code != 0 and "table fresh in us-east-1 does not exist" in clock.one_line
        created = webstore("import", str(DEMO), *where, "--create-table", home=tmp_path, **keys)
        assert created.code == 0, created.err
        assert "Created table fresh in us-east-1" in created.out
        assert "Imported store 1 into fresh" in created.out
        client = boto3.client("dynamodb", endpoint_url=endpoint, region_name=REGION, aws_access_key_id="test",
                              aws_secret_access_key="test")  # fmt: skip
        assert client.describe_table(TableName="fresh")["Table"]["TableStatus"] == "ACTIVE"
    finally:
        server.stop()


def test_catalog_file_missing_or_not_json(tmp_path: Path) -> None:
    where = ("--table", "webstore", "--region", REGION)
    missing = webstore("import", str(tmp_path / "nope.json"), *where, home=tmp_path)
    assert missing.code != 0
    assert missing.one_line == f"webstore import: no catalog file at {tmp_path / 'nope.json'}: check the path"
    broken = tmp_path / "broken.json"
    broken.write_text('{"store": ')
    invalid = webstore("import", str(broken), *where, home=tmp_path)
    assert invalid.code != 0
    assert invalid.one_line.startswith(f"webstore import: {broken} is not valid JSON: ")
    assert "line 1 column 11" in invalid.one_line


def test_credentials_file_missing_invalid_or_stale(tmp_path: Path) -> None:
    absent = tmp_path / "absent.json"
    for args in (("import", str(DEMO)), ("clock", "run", "--until", "2030-01-01T00:00:00Z")):
        prefix = f"webstore {args[0]}" + (" run" if args[0] == "clock" else "")
        run = webstore(*args, "--local", str(absent), home=tmp_path)
        assert run.code != 0
        start = f"start `webstore serve --credentials-file {absent}` first"
        assert run.one_line == f"{prefix}: no credentials file at {absent}: {start}"
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    run = webstore("import", str(DEMO), "--local", str(broken), home=tmp_path)
    assert run.code != 0 and run.one_line.startswith(f"webstore import: {broken} is not valid JSON (")
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"headless_url": "http://127.0.0.1:8080/api/accounts/x"}))
    run = webstore("import", str(DEMO), "--local", str(old), home=tmp_path)
    assert run.code != 0 and "has no dynamodb_endpoint, region, table" in run.one_line


def test_the_local_stack_not_running(tmp_path: Path) -> None:
    stale = tmp_path / "credentials.json"
    endpoint = f"http://127.0.0.1:{free_port()}"  # nothing listens there
    written = {"dynamodb_endpoint": endpoint, "region": REGION, "table": "webstore"}
    keys = {"aws_access_key_id": "local", "aws_secret_access_key": "local"}
    urls = {"storefront_url": "http://127.0.0.1:1", "operator_url": "http://127.0.0.1:2"}
    stale.write_text(json.dumps({**written, **keys, **urls}))
    for args in (("import", str(DEMO)), ("clock", "run", "--until", "2030-01-01T00:00:00Z")):
        run = webstore(*args, "--local", str(stale), home=tmp_path)
        assert run.code != 0
        assert f"the local stack is not running (nothing answers at {endpoint}): start " in run.one_line


def test_clock_run_refuses_a_malformed_instant(tmp_path: Path) -> None:
    for instant, expected in (
        ("next tuesday", "is not an ISO-8601 instant: write e.g. 2026-12-23T12:00:00Z"),
        ("2026-13-01T00:00:00Z", "is not an ISO-8601 instant"),
        ("2026-12-01T00:00:00", "has no UTC offset: add one, e.g. 2026-12-01T00:00:00Z"),
    ):
        run = webstore("clock", "run", "--until", instant, "--table", "t", "--region", REGION, home=tmp_path)
        assert run.code == 2
        assert run.one_line.startswith(f"webstore clock run: --until {instant!r} ")
        assert expected in run.one_line


def test_clock_run_against_a_table_needs_the_stage_urls(tmp_path: Path) -> None:
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer("127.0.0.1", free_port(), verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        endpoint = f"http://{host}:{port}"
        keys = {"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}
        where = ("--table", "t", "--region", REGION, "--dynamodb-endpoint", endpoint)
        assert webstore("import", str(DEMO), *where, "--create-table", home=tmp_path, **keys).code == 0
        run = webstore("clock", "run", "--until", "2030-01-01T00:00:00Z", *where, home=tmp_path, **keys)
        assert run.code == 2
        assert run.one_line == (
            "webstore clock run: with --table, also pass --storefront-url (StorefrontUrl), "
            "--operator-url (OperatorUrl)"
        )
    finally:
        server.stop()
