"""Fixtures for the webhook tests: moto (table, bus → rule → queue), a real HTTP receiver on
127.0.0.1 owned by the test, and helpers to turn SQS messages into Lambda SQS events."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import boto3
import pytest
from moto import mock_aws

from webstore import services as services_module
from webstore.catalog import WebhookEndpoint
from webstore.db import create_table
from webstore.repo.account import AccountRepository
from webstore.repo.webhooks import DeliveryAttempt, WebhookRepository
from webstore.sealing import seal
from webstore.services import Services

REGION = "us-east-1"
TABLE = "webstore-webhooks-test"
BUS = "webstore-test"
SECRET = "whsec-test-0123456789"


@pytest.fixture(autouse=True)
def webhook_env(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name, value in {
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_SESSION_TOKEN": "testing",
        "WEBSTORE_REGION": REGION,
        "WEBSTORE_TABLE_NAME": TABLE,
        "WEBSTORE_EVENT_BUS_NAME": BUS,
        "WEBSTORE_EVENTS": "eventbridge",
        "POWERTOOLS_TRACE_DISABLED": "1",
        "POWERTOOLS_METRICS_NAMESPACE": "webstore-test",
        "POWERTOOLS_SERVICE_NAME": "webhooks-test",
    }.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("WEBSTORE_ALLOW_PRIVATE_WEBHOOKS", raising=False)
    monkeypatch.delenv("WEBSTORE_DYNAMODB_ENDPOINT", raising=False)
    services_module.reset()
    yield
    services_module.reset()


@pytest.fixture
def allow_private(monkeypatch: pytest.MonkeyPatch) -> None:
    """Receivers in these tests listen on 127.0.0.1, which the default policy refuses."""
    monkeypatch.setenv("WEBSTORE_ALLOW_PRIVATE_WEBHOOKS", "true")
    services_module.reset()


@pytest.fixture
def aws() -> Iterator[Services]:
    with mock_aws():
        create_table(boto3.client("dynamodb", region_name=REGION), TABLE)
        services_module.reset()
        yield services_module.get_services()


@dataclass
class Wiring:
    queue_url: str
    queue_arn: str


@pytest.fixture
def wiring(aws: Services) -> Wiring:
    """What the CDK stack builds: the bus, a rule on source `webstore`, the buffer queue."""
    events = boto3.client("events", region_name=REGION)
    sqs = boto3.client("sqs", region_name=REGION)
    events.create_event_bus(Name=BUS)
    queue_url = sqs.create_queue(QueueName="webhook-buffer", Attributes={"VisibilityTimeout": "60"})[
        "QueueUrl"
    ]
    queue_arn = sqs.get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(Name="webhooks", EventBusName=BUS, EventPattern=json.dumps({"source": ["webstore"]}))
    events.put_targets(Rule="webhooks", EventBusName=BUS, Targets=[{"Id": "buffer", "Arn": queue_arn}])
    return Wiring(queue_url, queue_arn)


def receive(wiring: Wiring, expected: int = 1) -> list[dict[str, Any]]:
    sqs = boto3.client("sqs", region_name=REGION)
    messages: list[dict[str, Any]] = []
    for _ in range(5):
        batch = sqs.receive_message(
            QueueUrl=wiring.queue_url, MaxNumberOfMessages=10, AttributeNames=["All"], WaitTimeSeconds=0
        ).get("Messages", [])
        messages.extend(batch)
        if len(messages) >= expected:
            break
    return messages


def make_visible(wiring: Wiring, messages: list[dict[str, Any]]) -> None:
    """Stand-in for the backoff delay passing: the failed messages become receivable again."""
    sqs = boto3.client("sqs", region_name=REGION)
    for message in messages:
        sqs.change_message_visibility(
            QueueUrl=wiring.queue_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
        )


def sqs_event(wiring: Wiring, messages: list[dict[str, Any]]) -> dict[str, Any]:
    """The event Lambda's SQS event source hands the function for these messages."""
    return {
        "Records": [
            {
                "messageId": m["MessageId"],
                "receiptHandle": m["ReceiptHandle"],
                "body": m["Body"],
                "attributes": m["Attributes"],
                "messageAttributes": {},
                "md5OfBody": m["MD5OfBody"],
                "eventSource": "aws:sqs",
                "eventSourceARN": wiring.queue_arn,
                "awsRegion": REGION,
            }
            for m in messages
        ]
    }


@dataclass
class LambdaContext:
    function_name: str = "dispatch-webhook"
    memory_limit_in_mb: int = 256
    invoked_function_arn: str = f"arn:aws:lambda:{REGION}:123456789012:function:dispatch-webhook"
    aws_request_id: str = "test-request"

    def get_remaining_time_in_millis(self) -> int:
        return 30_000


@pytest.fixture
def context() -> LambdaContext:
    return LambdaContext()


# --- a webhook receiver on 127.0.0.1 ----------------------------------------------------------


@dataclass
class Received:
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> dict[str, Any]:
        result: dict[str, Any] = json.loads(self.raw)
        return result


Behaviour = Callable[["Receiver", Received], tuple[int, bytes]]


def echo_then(statuses: list[int] | None = None, default: int = 200) -> Behaviour:
    """Answers validation correctly; answers events with `statuses` in turn, then `default`."""
    queue = list(statuses or [])

    def behave(receiver: Receiver, request: Received) -> tuple[int, bytes]:
        if request.body.get("type") == "validation.webhook":
            return 200, json.dumps({"id": request.body["id"]}).encode()
        return (queue.pop(0) if queue else default), b'{"ok": true}'

    return behave


@dataclass
class Receiver:
    behaviour: Behaviour
    requests: list[Received] = field(default_factory=list)
    url: str = ""
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def events(self) -> list[Received]:
        return [r for r in self.requests if r.body.get("type") != "validation.webhook"]

    @property
    def validations(self) -> list[Received]:
        return [r for r in self.requests if r.body.get("type") == "validation.webhook"]


@pytest.fixture
def receiver_factory() -> Iterator[Callable[[Behaviour], Receiver]]:
    servers: list[ThreadingHTTPServer] = []

    def start(behaviour: Behaviour) -> Receiver:
        receiver = Receiver(behaviour)

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                request = Received({k: v for k, v in self.headers.items()}, raw)
                with receiver.lock:
                    receiver.requests.append(request)
                status, body = receiver.behaviour(receiver, request)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        servers.append(server)
        threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
        receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hooks/tebex"
        return receiver

    yield start
    for server in servers:
        server.shutdown()
        server.server_close()


def add_endpoint(
    services: Services,
    account_id: int,
    endpoint_id: int,
    url: str,
    *,
    events: list[str] | None = None,
    validated: bool = False,
    secret: str = SECRET,
) -> WebhookEndpoint:
    """Store an endpoint the way the catalog import does."""
    endpoint = WebhookEndpoint.model_validate(
        {"id": endpoint_id, "url": url, "events": events or [], "secret": secret, "validated": validated}
    )
    services.table.put(
        AccountRepository(services.table).webhook_item(account_id, endpoint, partial(seal, services.secrets))
    )
    return endpoint


def attempt_history(services: Services, account_id: int, limit: int = 50) -> list[DeliveryAttempt]:
    """The account's most recent delivery attempts, newest first (the repository's one Query)."""
    return WebhookRepository(services.table, services.secrets).history(account_id, limit)
