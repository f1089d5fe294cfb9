"""The store's Discord application and bot as the adapter: opened from what panel → Discord saved."""

from __future__ import annotations

from webstore.discord.http import HttpDiscord
from webstore.repo.discord import DiscordApp, DiscordRepository
from webstore.sealing import open_sealed
from webstore.services import Services


def api_of(services: Services, app: DiscordApp) -> HttpDiscord:
    return HttpDiscord(
        client_id=app.client_id,
        client_secret=open_sealed(services.secrets, app.client_secret_sealed),
        bot_token=open_sealed(services.secrets, app.bot_token_sealed),
        base_url=services.settings.discord_api_url,
    )


def store_api(services: Services, account_id: int) -> HttpDiscord | None:
    """The store's adapter, or None when it connected no application."""
    app = DiscordRepository(services.table).app(account_id)
    return api_of(services, app) if app is not None else None
