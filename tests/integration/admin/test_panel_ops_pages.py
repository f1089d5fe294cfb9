"""The panel's servers, queue and webhook pages through the real handlers under moto: forms
with CSRF and 303s, secrets shown once, roles (support uses the queue only; readonly sees no
forms and is refused on POST), escaping of what players and receivers wrote, and isolation."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from functions.admin import (
    get_queue,
    get_server,
    get_servers,
    get_webhook,
    get_webhook_delivery,
    get_webhooks,
    post_queue_resend,
    post_server,
    post_server_commands_delete,
    post_server_name,
    post_server_secret,
    post_webhook,
    post_webhook_delivery_redeliver,
    post_webhook_disabled,
    post_webhook_redeliver,
    post_webhook_secret,
    post_webhook_validate,
)
from functions.operator import get_information
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.panel import PanelClient, signed_in
from webstore import services as services_module
from webstore.admin.roles import Role
from webstore.catalog_import import ImportResult
from webstore.db import Transaction
from webstore.events import DomainEvent
from webstore.repo.queue import QueuedCommand, QueueRepository
from webstore.services import get_services
from webstore.webhooks import WebhookDispatcher

HOSTILE = '<script>alert("pwned")</script>'
_SECRET = re.compile(r'<code id="secret">([0-9a-f]+)</code>')


def secret_on(html: str) -> str:
    found = _SECRET.search(html)
    assert found, html
    return found.group(1)


def plugin_status(secret: str) -> int:
    return invoke(get_information.handler, "GET", "/information", headers=secret_headers(secret)).status


def done_of(response: Any) -> str:
    assert response.status == 303, response.body
    return str(response.headers["location"])


# --- servers ---------------------------------------------------------------------------------


def test_the_owner_adds_renames_and_rotates_a_server_and_sees_each_secret_once(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    created = owner.post(post_server.handler, "/servers", {"name": "Skyblock"})
    assert created.status == 200 and created.headers["cache-control"] == "no-store"
    first = secret_on(created.body)
    server_id = int(re.search(r'href="/servers/([0-9]+)"', created.body).group(1))  # type: ignore[union-attr]
    assert plugin_status(first) == 200

    location = done_of(owner.post(post_server_name.handler, f"/servers/{server_id}/name", {"name": "Sky 2"}))
    assert location.startswith(f"/servers/{server_id}?done=")
    rotated = owner.post(post_server_secret.handler, f"/servers/{server_id}/secret", {})
    second = secret_on(rotated.body)

    assert plugin_status(first) == 403 and plugin_status(second) == 200
    for page in (
        owner.get(get_servers.handler, "/servers"),
        owner.get(get_server.handler, f"/servers/{server_id}"),
    ):
        assert page.status == 200
        assert "Sky 2" in page.body and first not in page.body and second not in page.body


def test_a_bad_server_name_is_the_form_error_naming_the_field(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    refused = owner.post(post_server.handler, "/servers", {"name": "   "})
    assert refused.status == 422 and "name" in refused.body


def test_readonly_sees_no_forms_and_every_post_is_403(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    owner.post(post_webhook.handler, "/webhooks", {"url": "https://hooks.example.com/x"})
    reader = signed_in(Role.READONLY)
    for handler, path in (
        (get_servers.handler, "/servers"),
        (get_server.handler, "/servers/1"),
        (get_queue.handler, "/queue"),
        (get_webhooks.handler, "/webhooks"),
        (get_webhook.handler, "/webhooks/1"),
    ):
        page = reader.get(handler, path)
        assert page.status == 200, (path, page.body)
        assert 'method="post" action="/logout"' in page.body
        assert page.body.count('method="post"') == 1, path  # the shell's logout only
    for handler, path in (
        (post_server.handler, "/servers"),
        (post_server_name.handler, "/servers/1/name"),
        (post_server_secret.handler, "/servers/1/secret"),
        (post_server_commands_delete.handler, "/servers/1/commands/delete"),
        (post_queue_resend.handler, "/queue/resend"),
        (post_webhook.handler, "/webhooks"),
        (post_webhook_validate.handler, "/webhooks/1/validate"),
        (post_webhook_disabled.handler, "/webhooks/1/disabled"),
        (post_webhook_secret.handler, "/webhooks/1/secret"),
        (post_webhook_redeliver.handler, "/webhooks/1/redeliver"),
    ):
        refused = reader.post(handler, path, {"name": "x", "url": "https://a.example/x", "command_ids": "1"})
        assert refused.status == 403, (path, refused.status)


def test_support_may_delete_queued_commands_but_not_change_servers_or_webhooks(
    demo: DemoStore,
) -> None:
    manual_payment(invoke, demo.server_secret, ign="Steve")
    support = signed_in(Role.SUPPORT)
    page = support.get(get_server.handler, "/servers/1")
    assert page.status == 200
    assert 'action="/servers/1/commands/delete"' in page.body
    assert 'action="/servers/1/secret"' not in page.body and 'action="/servers/1/name"' not in page.body
    ids = re.findall(r'name="command_ids" value="([0-9]+)"', page.body)
    assert ids
    done_of(
        support.post(
            post_server_commands_delete.handler, "/servers/1/commands/delete", {"command_ids": ids[0]}
        )
    )
    assert f'value="{ids[0]}"' not in support.get(get_server.handler, "/servers/1").body
    assert support.post(post_server_secret.handler, "/servers/1/secret", {}).status == 403
    assert support.post(post_webhook.handler, "/webhooks", {"url": "https://a.example/x"}).status == 403
    assert support.get(get_webhooks.handler, "/webhooks").status == 403


def test_a_post_without_the_csrf_token_changes_nothing(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    refused = owner.post(post_server.handler, "/servers", {"name": "Sneaky"}, csrf="")
    assert refused.status == 403
    assert "Sneaky" not in owner.get(get_servers.handler, "/servers").body


# --- the queue ----------------------------------------------------------------------------------


def hostile_command(account_id: int = 1) -> QueuedCommand:
    """A waiting command whose player name and command text are a script (what a lax platform
    name or a package variable could carry)."""
    command = QueuedCommand(
        id=999_001,
        server_id=1,
        command=f"say {HOSTILE}",
        require_online=True,
        username_id=777,
        username=HOSTILE,
        created_at=datetime(2030, 1, 1, tzinfo=UTC),
    )
    tx = Transaction(get_services().table)
    QueueRepository.add_enqueue(tx, account_id, [command])
    tx.commit()
    return command


def test_queue_pages_escape_player_names_and_commands(demo: DemoStore) -> None:
    hostile_command()
    manual_payment(invoke, demo.server_secret, ign="Steve")
    owner = signed_in(Role.OWNER)
    on_server = owner.get(get_server.handler, "/servers/1")
    by_player = owner.get(get_queue.handler, "/queue", {"player": "Steve"})
    for page in (on_server, by_player):
        assert page.status == 200
        assert HOSTILE not in page.body
    assert "&lt;script&gt;alert(&#34;pwned&#34;)&lt;/script&gt;" in on_server.body
    assert "Steve" in by_player.body
    searched = owner.get(get_queue.handler, "/queue", {"player": HOSTILE})
    assert searched.status == 422 and HOSTILE not in searched.body


def test_resend_from_the_queue_page_queues_once_per_form(demo: DemoStore) -> None:
    payment = manual_payment(invoke, demo.server_secret, ign="Steve")
    support = signed_in(Role.SUPPORT)
    page = support.get(get_queue.handler, "/queue", {"player": "Steve"})
    request_id = re.search(r'name="request_id" value="([0-9a-f]{32})"', page.body).group(1)  # type: ignore[union-attr]
    command_id = re.search(r"<tr><td>([0-9]+)</td><td>1</td><td>Steve", page.body).group(1)  # type: ignore[union-attr]
    form = {"request_id": request_id, "transaction": payment["txn_id"], "command_ids": command_id}

    first = done_of(support.post(post_queue_resend.handler, "/queue/resend", form))
    second = done_of(support.post(post_queue_resend.handler, "/queue/resend", form))

    assert "Queued+again" in first and "Already+resent" in second
    after = support.get(get_queue.handler, "/queue", {"player": "Steve"})
    assert after.body.count("<td>Steve") == page.body.count("<td>Steve") + 1


# --- webhooks ------------------------------------------------------------------------------------


class Receiver:
    """A webhook receiver on 127.0.0.1: answers the handshake; events with 503 and a script
    while down."""

    def __init__(self) -> None:
        self.up = True
        self.accepted: list[dict[str, Any]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                if body["type"] == "validation.webhook":
                    status, answer = 200, json.dumps({"id": body["id"]}).encode()
                elif receiver.up:
                    receiver.accepted.append(body)
                    status, answer = 200, b"{}"
                else:
                    status, answer = 503, HOSTILE.encode()
                self.send_response(status)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        ).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/hooks"


@pytest.fixture
def receiver(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[Receiver]:
    monkeypatch.setenv("WEBSTORE_ALLOW_PRIVATE_WEBHOOKS", "true")
    services_module.reset()
    bus = services_module.local_bus()
    dispatcher = WebhookDispatcher(get_services())
    bus.subscribe(dispatcher.dispatch)  # what `webstore serve` wires (without its retry worker)
    running = Receiver()
    yield running
    bus.subscribers.remove(dispatcher.dispatch)
    running.server.shutdown()
    running.server.server_close()
    services_module.reset()


def add_and_validate(client: PanelClient, url: str) -> tuple[int, str]:
    added = client.post(post_webhook.handler, "/webhooks", {"url": url, "events": ""})
    assert added.status == 200, added.body
    secret = secret_on(added.body)
    endpoint_id = int(re.search(r'href="/webhooks/([0-9]+)"', added.body).group(1))  # type: ignore[union-attr]
    done_of(client.post(post_webhook_validate.handler, f"/webhooks/{endpoint_id}/validate", {}))
    return endpoint_id, secret


def test_a_failed_delivery_is_shown_escaped_and_redelivered_once_the_receiver_is_up(
    receiver: Receiver,
) -> None:
    owner = signed_in(Role.OWNER)
    endpoint_id, secret = add_and_validate(owner, receiver.url)
    receiver.up = False
    event = DomainEvent(type="payment.completed", account_id=1, subject={"player": {"name": HOSTILE}})
    WebhookDispatcher(get_services()).dispatch(event)

    log = owner.get(get_webhook.handler, f"/webhooks/{endpoint_id}")
    assert log.status == 200 and "validated" in log.body and secret not in log.body
    ref = f"{endpoint_id}-{event.id}"
    assert f'href="/webhooks/deliveries/{ref}"' in log.body and "failed" in log.body
    detail = owner.get(get_webhook_delivery.handler, f"/webhooks/deliveries/{ref}")
    assert detail.status == 200 and "HTTP 503" in detail.body
    assert HOSTILE not in detail.body and "&lt;script&gt;" in detail.body

    receiver.up = True
    path = f"/webhooks/deliveries/{ref}/redeliver"
    assert "Sent+again" in done_of(owner.post(post_webhook_delivery_redeliver.handler, path, {}))
    assert "Already+delivered" in done_of(owner.post(post_webhook_delivery_redeliver.handler, path, {}))
    assert [b["id"] for b in receiver.accepted] == [event.id]
    assert "delivered" in owner.get(get_webhook_delivery.handler, f"/webhooks/deliveries/{ref}").body


def test_redeliver_all_failed_since_a_time(receiver: Receiver) -> None:
    owner = signed_in(Role.OWNER)
    endpoint_id, _ = add_and_validate(owner, receiver.url)
    receiver.up = False
    events = [DomainEvent(type="payment.completed", account_id=1, subject={"n": n}) for n in range(3)]
    for each in events:
        WebhookDispatcher(get_services()).dispatch(each)
    receiver.up = True
    location = done_of(
        owner.post(
            post_webhook_redeliver.handler,
            f"/webhooks/{endpoint_id}/redeliver",
            {"since": "2000-01-01T00:00"},
        )
    )
    assert "3+failed" in location
    assert sorted(b["id"] for b in receiver.accepted) == sorted(e.id for e in events)
    bad = owner.post(post_webhook_redeliver.handler, f"/webhooks/{endpoint_id}/redeliver", {"since": "soon"})
    assert bad.status == 422 and "since" in bad.body


def test_disable_and_rotate_an_endpoint_from_its_page(receiver: Receiver) -> None:
    owner = signed_in(Role.OWNER)
    endpoint_id, first = add_and_validate(owner, receiver.url)
    done_of(
        owner.post(post_webhook_disabled.handler, f"/webhooks/{endpoint_id}/disabled", {"disabled": "true"})
    )
    WebhookDispatcher(get_services()).dispatch(
        DomainEvent(type="payment.completed", account_id=1, subject={})
    )
    assert receiver.accepted == []
    assert "disabled" in owner.get(get_webhooks.handler, "/webhooks").body

    done_of(
        owner.post(post_webhook_disabled.handler, f"/webhooks/{endpoint_id}/disabled", {"disabled": "false"})
    )
    rotated = owner.post(post_webhook_secret.handler, f"/webhooks/{endpoint_id}/secret", {})
    second = secret_on(rotated.body)
    assert second != first
    page = owner.get(get_webhook.handler, f"/webhooks/{endpoint_id}")
    assert first not in page.body and second not in page.body and "not validated" in page.body


def test_one_store_sees_and_changes_nothing_of_another_stores_servers_queue_or_webhooks(
    receiver: Receiver, other_store: ImportResult
) -> None:
    owner = signed_in(Role.OWNER)
    endpoint_id, _ = add_and_validate(owner, receiver.url)
    hostile_command()
    stranger = signed_in(Role.OWNER, account_id=other_store.account_id)
    assert receiver.url not in stranger.get(get_webhooks.handler, "/webhooks").body
    assert stranger.get(get_webhook.handler, f"/webhooks/{endpoint_id}").status == 404
    assert "999001" not in stranger.get(get_server.handler, "/servers/1").body
    assert stranger.post(post_webhook_secret.handler, f"/webhooks/{endpoint_id}/secret", {}).status == 404
    assert "999001" in owner.get(get_server.handler, "/servers/1").body
