"""Panel → Discord through the real handlers under moto, Discord the stand-in: connecting the
application and bot (checked with Discord, write-only, sealed, audited), the roles per package
(refused when the bot's highest role is not above them), the delivery log, "Retry now" and
"Reconcile now", and a read-only role."""

from __future__ import annotations

from collections.abc import Iterator
from html import unescape
from urllib.parse import unquote_plus

import pytest

from functions.admin import connect_discord, get_discord, reconcile_discord, save_discord_rule
from tests.integration.subscriptions.support import buy
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke
from tests.support.panel import signed_in
from webstore import services as services_module
from webstore.domain.roles import Role
from webstore.events import DomainEvent
from webstore.repo.audit_log import AuditLog
from webstore.repo.discord import DiscordRepository
from webstore.services import get_services

from .conftest import ADMIN, GUILD, STEVE_DISCORD, SUPPORTER, VIP_ROLE
from .test_role_sync import Deliver, set_up


@pytest.fixture
def standin(aws: None, discord: StandInDiscord, monkeypatch: pytest.MonkeyPatch) -> Iterator[StandInDiscord]:
    monkeypatch.setenv("WEBSTORE_DISCORD_API_URL", discord.base_url)
    services_module.reset()
    yield discord
    services_module.reset()


def app_fields(discord: StandInDiscord, **changes: str) -> dict[str, str]:
    return {
        "client_id": discord.client_id,
        "client_secret": discord.client_secret,
        "bot_token": discord.bot_token,
        "public_key": "ab" * 32,
        "guilds_join": "1",
        **changes,
    }


def test_the_owner_connects_the_bot_and_sets_a_packages_roles(
    demo: DemoStore, standin: StandInDiscord
) -> None:
    owner = signed_in(Role.OWNER, email="discord-owner@example.com")
    page = owner.get(get_discord.handler, "/discord")
    assert page.status == 200 and "Not connected." in page.body

    saved = owner.post(connect_discord.handler, "/discord/app", app_fields(standin))
    assert saved.status == 303, saved.body
    assert saved.headers["location"].startswith("/discord?done=")
    app = DiscordRepository(demo.table).app(1)
    assert app is not None and app.bot_user_id == standin.bot_id and [g.name for g in app.guilds] == ["Craft"]
    assert (
        standin.bot_token not in app.bot_token_sealed
        and standin.client_secret not in app.client_secret_sealed
    )
    entry = AuditLog(demo.table).page(1).entries[0]
    assert (entry.actor, entry.action) == ("staff:discord-owner@example.com", "discord.connect")
    assert "bot_token: changed" in entry.summary and standin.bot_token not in entry.summary

    page = owner.get(get_discord.handler, "/discord")
    assert "Connected as <b>store-bot</b>" in page.body
    assert "Admin (999)</td><td>no: the bot&#39;s highest role is not above it" in page.body
    assert "VIP (910)</td><td>yes" in page.body
    assert standin.bot_token not in page.body and standin.client_secret not in page.body

    refused = owner.post(
        save_discord_rule.handler, "/discord/rules", {"package_id": "1", "guild_id": GUILD, "role_ids": ADMIN}
    )
    assert refused.status == 422 and "highest role must sit above Admin" in unescape(refused.body)
    assert 'value="999"' in refused.body  # what was typed
    ok = owner.post(
        save_discord_rule.handler,
        "/discord/rules",
        {"package_id": "1", "guild_id": GUILD, "role_ids": f"{VIP_ROLE}, {SUPPORTER}", "remove_on_end": "1"},
    )
    assert ok.status == 303, ok.body
    [rule] = DiscordRepository(demo.table).rules(1)
    assert (rule.package_id, rule.role_ids, rule.remove_on_end) == (1, {VIP_ROLE, SUPPORTER}, True)
    assert (
        "<td>1</td><td>Craft</td><td>VIP, Supporter</td><td>yes</td>"
        in owner.get(get_discord.handler, "/discord").body
    )

    # Saving again with the secrets left blank keeps them.
    again = owner.post(
        connect_discord.handler, "/discord/app", app_fields(standin, client_secret="", bot_token="")
    )
    assert again.status == 303, again.body


def test_a_wrong_token_or_id_is_refused_with_what_was_typed(demo: DemoStore, standin: StandInDiscord) -> None:
    owner = signed_in(Role.OWNER)
    wrong = owner.post(connect_discord.handler, "/discord/app", app_fields(standin, bot_token="nope"))
    assert wrong.status == 422 and "Bot token: Discord refused it" in wrong.body
    assert DiscordRepository(demo.table).app(1) is None
    typed = "wrong-secret-Q7x9"
    secret = owner.post(connect_discord.handler, "/discord/app", app_fields(standin, client_secret=typed))
    assert secret.status == 422
    assert "Client secret: Discord refused it with this client id (401)" in unescape(secret.body)
    assert typed not in secret.body  # write-only: not shown back
    assert DiscordRepository(demo.table).app(1) is None  # nothing saved
    bad_id = owner.post(connect_discord.handler, "/discord/app", app_fields(standin, client_id="abc"))
    assert bad_id.status == 422 and "Client id" in bad_id.body
    no_rules = owner.post(save_discord_rule.handler, "/discord/rules", {"package_id": "1", "guild_id": GUILD})
    assert no_rules.status == 422 and "Connect the application and bot first" in no_rules.body


def test_the_log_shows_a_refused_grant_and_retry_now_applies_it_once_fixed(
    demo: DemoStore, invoke: Invoke, standin: StandInDiscord, published: list[DomainEvent]
) -> None:
    owner = signed_in(Role.OWNER)
    assert owner.post(connect_discord.handler, "/discord/app", app_fields(standin)).status == 303
    set_up(standin)
    buy(invoke, demo, {"package_id": 1})
    standin.guilds[GUILD].bot_roles = {"912"}  # the bot's role dragged below VIP by mistake
    Deliver(standin, published)(get_services().now())
    page = owner.get(get_discord.handler, "/discord")
    assert page.status == 200
    assert 'class="status-refused">refused' in page.body and "Retry now" in page.body
    assert "50013" in page.body

    standin.guilds[GUILD].bot_roles = {"950"}  # fixed in Discord
    retried = owner.post(
        reconcile_discord.handler,
        "/discord/reconcile",
        {"player": str(DiscordRepository(demo.table).recent(1)[0].username_id)},
    )
    assert retried.status == 303, retried.body
    assert standin.roles_of(GUILD, STEVE_DISCORD) == {VIP_ROLE, SUPPORTER}
    everyone = owner.post(reconcile_discord.handler, "/discord/reconcile", {})
    assert everyone.status == 303
    assert "Reconciled 1 player(s): 0 change(s) made" in unquote_plus(everyone.headers["location"])


def test_readonly_sees_no_forms_and_may_not_post(demo: DemoStore, standin: StandInDiscord) -> None:
    reader = signed_in(Role.READONLY)
    page = reader.get(get_discord.handler, "/discord")
    assert page.status == 200 and "<form" not in page.body.split("<h1>Discord</h1>", 1)[1]
    assert reader.post(connect_discord.handler, "/discord/app", app_fields(standin)).status == 403


def test_the_owner_adds_a_discord_webhook_from_the_webhooks_form(
    demo: DemoStore, standin: StandInDiscord
) -> None:
    from functions.admin import get_webhooks, post_webhook

    owner = signed_in(Role.OWNER, email="hooks-owner@example.com")
    form = owner.get(get_webhooks.handler, "/webhooks")
    assert form.status == 200 and '<option value="discord"' in form.body
    refused = owner.post(
        post_webhook.handler, "/webhooks", {"format": "discord", "url": "https://example.com/hook"}
    )
    assert refused.status == 422 and "a Discord webhook URL" in refused.body
    assert '<option value="discord" selected>' in refused.body  # what was chosen, kept
    url = "https://discord.com/api/webhooks/123456789012345678/secret-webhook-token"
    added = owner.post(post_webhook.handler, "/webhooks", {"format": "discord", "url": url})
    assert added.status in (200, 303), added.body
    listing = owner.get(get_webhooks.handler, "/webhooks").body
    assert "<td>Discord</td>" in listing and "payment.completed" in listing
    assert "secret-webhook-token" not in listing  # the URL's token is a secret
