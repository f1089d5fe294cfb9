"""Where the `webstore` tools find the table, and their failures as one line that says what to do.

A tool (`import`, `clock run`) reaches either a deployed table (`--table`, `--region`, AWS's
credentials chain) or a running `webstore serve` (`--local <credentials file>`: the file serve
wrote names its loopback DynamoDB endpoint, region, table and the dummy keys that endpoint takes).
Expected failures (no region, no credentials, refused credentials, no table, access denied, the
file missing or not JSON, the local stack not running) become `ToolFailure`: one line, non-zero
exit, no traceback.
"""

from __future__ import annotations

import argparse
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    EndpointConnectionError,
    NoCredentialsError,
    NoRegionError,
    PartialCredentialsError,
)

from webstore.db import create_table

# What `serve --credentials-file` adds for the tools (infra.local.tool_access writes them).
LOCAL_KEYS = ("dynamodb_endpoint", "region", "table", "aws_access_key_id", "aws_secret_access_key")
# A tool gives up quickly on a stack that is not there instead of retrying for seconds.
_CLIENT_CONFIG = Config(retries={"mode": "standard", "max_attempts": 2}, connect_timeout=3, read_timeout=30)
REFUSED_CREDENTIALS = {
    "UnrecognizedClientException",
    "InvalidSignatureException",
    "ExpiredTokenException",
    "InvalidClientTokenId",
    "SignatureDoesNotMatch",
}


class ToolFailure(Exception):
    """An expected failure of a tool; its message is the one line printed."""


@dataclass(frozen=True)
class Target:
    """The table a tool works on, and how to reach it."""

    table: str
    region: str | None
    endpoint: str | None = None
    # Set with --local: the file serve wrote, and what it holds besides the table's address.
    local_file: Path | None = None
    local: dict[str, Any] | None = None

    def client(self) -> Any:
        # Loopback moto: the dummy keys from the file, never the caller's real ones.
        local = self.local or {}
        return boto3.client(
            "dynamodb",
            region_name=self.region,
            endpoint_url=self.endpoint,
            config=_CLIENT_CONFIG,
            aws_access_key_id=local.get("aws_access_key_id"),
            aws_secret_access_key=local.get("aws_secret_access_key"),
        )

    def describe(self) -> str:
        if self.local_file is not None:
            return f"the local stack's table {self.table} ({self.endpoint})"
        return f"table {self.table} in {self.region or 'the default region'}"


def add_target_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_argument_group("where the table is (one of)")
    where.add_argument(
        "--local",
        type=Path,
        metavar="CREDENTIALS_FILE",
        help="the running `webstore serve` that wrote this file with --credentials-file",
    )
    where.add_argument("--table", help="a deployed table (the stack's TableName output)")
    where.add_argument("--region", help="its AWS region (default: AWS_REGION / your profile's)")
    where.add_argument("--dynamodb-endpoint", help="a DynamoDB endpoint other than AWS's (DynamoDB Local)")


def target_from(args: argparse.Namespace) -> Target:
    if args.local is not None:
        if args.table or args.dynamodb_endpoint:
            raise ToolFailure("--local names the table already: leave out --table and --dynamodb-endpoint")
        return local_target(args.local)
    if not args.table:
        raise ToolFailure(
            "name the table: --table <TableName> (a deployed stack's output) with --region, "
            "or --local <credentials file> for a running `webstore serve`"
        )
    region = args.region or boto3.session.Session().region_name
    if not region:
        raise ToolFailure("no AWS region: pass --region <region> or set AWS_REGION")
    return Target(table=args.table, region=region, endpoint=args.dynamodb_endpoint)


def local_target(path: Path) -> Target:
    """The running local stack's table, from the credentials file `serve` wrote."""
    start = f"start `webstore serve --credentials-file {path}` first"
    try:
        text = path.read_text()
    except FileNotFoundError:
        raise ToolFailure(f"no credentials file at {path}: {start}") from None
    except OSError as error:
        raise ToolFailure(f"cannot read {path} ({error.strerror}): check its path and permissions") from None
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ToolFailure(f"{path} is not valid JSON ({error}): {start} to write it again") from None
    missing = [key for key in LOCAL_KEYS if not isinstance(data, dict) or not data.get(key)]
    if missing:
        raise ToolFailure(
            f"{path} has no {', '.join(missing)}: it was not written by this version of "
            f"`webstore serve`; {start}"
        )
    return Target(
        table=data["table"],
        region=data["region"],
        endpoint=data["dynamodb_endpoint"],
        local_file=path,
        local=data,
    )


def check_table(target: Target, client: Any, *, create: bool = False) -> None:
    """Refuse early, in one line, when the table is not there (or create it when asked)."""
    try:
        client.describe_table(TableName=target.table)
        return
    except ClientError as error:
        if error.response.get("Error", {}).get("Code") != "ResourceNotFoundException" or not create:
            raise
    create_table(client, target.table)
    client.get_waiter("table_exists").wait(
        TableName=target.table, WaiterConfig={"Delay": 2, "MaxAttempts": 60}
    )
    print(f"Created {target.describe()}")


@contextmanager
def one_line_failures(target: Target | None, *, can_create: bool = False) -> Iterator[None]:
    """Turn AWS's expected failures into a ToolFailure that says what to do."""
    try:
        yield
    except NoRegionError:
        raise ToolFailure("no AWS region: pass --region <region> or set AWS_REGION") from None
    except (NoCredentialsError, PartialCredentialsError):
        local = (
            "; a local DynamoDB endpoint takes any, e.g. AWS_ACCESS_KEY_ID=local AWS_SECRET_ACCESS_KEY=local"
            if target is not None and target.endpoint
            else ""
        )
        raise ToolFailure(
            "no AWS credentials: set AWS_PROFILE (see `aws configure` / `aws sso login`) or "
            f"AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY{local}"
        ) from None
    except EndpointConnectionError as error:
        if target is not None and target.local_file is not None:
            raise ToolFailure(
                f"the local stack is not running (nothing answers at {target.endpoint}): start "
                f"`webstore serve --credentials-file {target.local_file}` and try again"
            ) from None
        raise ToolFailure(f"cannot reach DynamoDB ({error}): check --region and your network") from None
    except ClientError as error:
        raise ToolFailure(client_error_line(error, target, can_create=can_create)) from None
    except BotoCoreError as error:
        raise ToolFailure(f"AWS call failed: {error}") from None


def error_code(error: ClientError) -> tuple[str, str]:
    """AWS's error code and message. IAM's refusals in front of a JSON API can come back as an
    XML body (moto's server does this) that botocore leaves as the HTTP status: read the code
    and message from the XML then."""
    details = error.response.get("Error", {})
    code, message = str(details.get("Code", "")), str(details.get("Message", ""))
    if code.isdigit():
        found = _XML_CODE.search(message)
        text = _XML_MESSAGE.search(message)
        code = found.group(1) if found else code
        message = text.group(1) if text else message
    if code == "AccessDenied":
        code = "AccessDeniedException"
    return code, message


_XML_CODE = re.compile(r"<Code>([^<]+)</Code>")
_XML_MESSAGE = re.compile(r"<Message>(?:<!\[CDATA\[)?(.*?)(?:\]\]>)?</Message>", re.DOTALL)


def client_error_line(error: ClientError, target: Target | None, *, can_create: bool) -> str:
    code, message = error_code(error)
    where = target.describe() if target is not None else "the table"
    if code == "ResourceNotFoundException":
        hint = "check --table (the stack's TableName output) and --region"
        if can_create:
            hint += ", or pass --create-table to create it"
        return f"{where} does not exist: {hint}"
    if code == "AccessDeniedException":
        return (
            f"access denied to {where}: your AWS identity needs DynamoDB read and write on it "
            f"(use the deploying role or profile) — AWS said: {message}"
        )
    if code in REFUSED_CREDENTIALS:
        return (
            f"AWS refused your credentials ({code}): refresh them (`aws sso login`, "
            "`aws configure`) or check AWS_PROFILE"
        )
    return f"DynamoDB refused the call on {where} ({code}: {message})"
