"""The panel's one form flow (webstore.admin.flow, functions.admin_deps.form) through the real
handlers: a form either answers 303 to the page that shows the result, or the same form again
at the refusal's status (4xx) with the message and what was typed, nothing written; not found
and not allowed stay the request's own answer (the error page)."""

from __future__ import annotations

from functions.admin import (
    get_server,
    get_servers,
    get_webhooks,
    post_server,
    post_server_name,
    post_webhook,
    post_webhook_validate,
)
from tests.support.demo import DemoStore
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.repo.audit_log import AuditLog
from webstore.services import get_services


def test_a_refused_form_is_the_same_form_again_at_4xx_keeping_what_was_typed(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    before = AuditLog(get_services().table).page(1).entries
    typed = {"url": "ftp://hooks.example.test/in", "events": "payment.completed"}
    refused = owner.post(post_webhook.handler, "/webhooks", typed)
    assert 400 <= refused.status < 500 and refused.status != 404
    assert 'id="form-error"' in refused.body and 'role="alert"' in refused.body
    assert 'value="ftp://hooks.example.test/in"' in refused.body  # the same form, as typed
    assert 'value="payment.completed"' in refused.body
    assert 'action="/webhooks"' in refused.body and "<h1>Webhooks</h1>" in refused.body
    assert AuditLog(get_services().table).page(1).entries == before  # nothing written
    assert "ftp://" not in owner.get(get_webhooks.handler, "/webhooks").body

    long_name = "n" * 300
    again = owner.post(post_server.handler, "/servers", {"name": long_name})
    assert again.status == 422 and 'id="form-error"' in again.body
    assert f'value="{long_name}"' in again.body
    assert long_name not in owner.get(get_servers.handler, "/servers").body


def test_a_form_that_succeeds_answers_303_to_the_page_saying_what_was_done(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    renamed = owner.post(post_server_name.handler, "/servers/1/name", {"name": "Lobby prime"})
    assert renamed.status == 303 and renamed.headers["location"].startswith("/servers/1?done=")
    shown = owner.get(get_server.handler, "/servers/1", {"done": "Server renamed"})
    assert 'class="done"' in shown.body and "Lobby prime" in shown.body
    issued = owner.post(post_server.handler, "/servers", {"name": "Lobby two"})
    assert issued.status == 200 and 'id="secret"' in issued.body  # a secret: shown once, not redirected to


def test_not_found_is_the_requests_answer_not_the_form_again(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    missing = owner.post(post_webhook_validate.handler, "/webhooks/999999/validate", {})
    assert missing.status == 404 and 'id="form-error"' not in missing.body
