"""Control-panel servers, command queue and webhook scenarios for scripts/bench_round_trips.py:
the server list, a server's queue, a player's queue, the endpoints, an endpoint's delivery log and
one delivery (docs/panel.md, "Servers and the command queue", "Webhooks"). Each page is its
own reads with the session check (one GetItem) beside them, whatever the store's size."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

from functions.admin import (
    get_queue,
    get_server,
    get_servers,
    get_webhook,
    get_webhook_delivery,
    get_webhooks,
)
from functions.operator import create_payment
from tests.support.lambda_events import LambdaContext, api_event
from webstore.admin import sessions
from webstore.admin import webhooks as panel_webhooks
from webstore.admin.roles import Role
from webstore.admin.staff import create_member
from webstore.repo.webhooks import AttemptOutcome, Failure, WebhookRepository
from webstore.services import get_services

ACCOUNT = 1
EMAIL = "bench-ops@example.com"
PASSWORD = "bench password 456"
EVENT_ID = "bench-event-1"


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    now = datetime.now(UTC)
    created = create_member(services, ACCOUNT, EMAIL, Role.OWNER, now, PASSWORD)
    cookie = sessions.issue(services, created.member, now)
    ctx["ops_cookie"] = f"{sessions.COOKIE_NAME}={cookie.value}"
    secret = ctx["demo"].server_secrets[1]
    body = {"ign": "Steve", "packages": [{"id": 10}], "price": 10, "note": ""}
    paid = create_payment.handler(
        api_event("POST", "/payments", body=body, headers={"x-tebex-secret": secret}), LambdaContext()
    )
    assert paid["statusCode"] == 200, paid
    endpoint = panel_webhooks.add_endpoint(
        services, ACCOUNT, "https://hooks.example.com/bench", [], actor="bench", now=now
    )
    repo = WebhookRepository(services.table, services.secrets)
    claim = repo.claim(
        ACCOUNT,
        EVENT_ID,
        "payment.completed",
        endpoint.endpoint_id,
        timedelta(seconds=30),
        now,
        subject={"n": 1},
    )
    outcome = AttemptOutcome(attempt=1, at=now, success=False, status_code=503, latency_ms=40, excerpt="down")
    failure = Failure(at=now, url="https://hooks.example.com/bench", error="HTTP 503")
    repo.release(ACCOUNT, EVENT_ID, endpoint.endpoint_id, claim.token, failure, outcome)
    ctx["ops_endpoint"] = endpoint.endpoint_id


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    headers = {"headers": {"cookie": ctx["ops_cookie"]}}
    endpoint_id = ctx["ops_endpoint"]
    yield "admin GET /servers", get_servers.handler, "GET", "/servers", headers
    yield "admin GET /servers/{id} (queue)", get_server.handler, "GET", "/servers/1", headers
    yield "admin GET /queue (servers)", get_queue.handler, "GET", "/queue", headers
    yield (
        "admin GET /queue?player=",
        get_queue.handler,
        "GET",
        "/queue",
        headers | {"query": {"player": "Steve"}},
    )
    yield "admin GET /webhooks", get_webhooks.handler, "GET", "/webhooks", headers
    yield "admin GET /webhooks/{id} (log)", get_webhook.handler, "GET", f"/webhooks/{endpoint_id}", headers
    yield (
        "admin GET /webhooks/deliveries/{id}",
        get_webhook_delivery.handler,
        "GET",
        f"/webhooks/deliveries/{endpoint_id}-{EVENT_ID}",
        headers,
    )
