"""Panel → Discord (`/discord`): the store's application and bot (client id, client secret, bot
token: write-only, sealed, checked with Discord on save), per package the guild and roles it
grants and whether they go when the purchase ends, and the delivery log with "Retry now" and
"Reconcile now" (docs/discord.md). HTML from templates/panel/discord/.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.discord import DiscordApi, DiscordRefused, DiscordRetryLater
from webstore.discord.app import api_of
from webstore.discord.daily import reconcile_players
from webstore.discord.http import HttpDiscord
from webstore.domain.discord import RoleRule
from webstore.errors import Invalid, NotFound
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.audit_log import Audit, changed
from webstore.repo.discord import DiscordApp, DiscordRepository, GuildRoleView, GuildView
from webstore.sealing import open_sealed, seal
from webstore.services import Services

SECTION = "discord"
PATH = "/discord"
LOG_SIZE = 50
MAX_SECRET = 200
MAX_ROLES = 10

ApiFactory = Callable[[str, str, str], DiscordApi]


def _snowflake(value: str, label: str, field: str) -> str:
    value = value.strip()
    if not (value.isascii() and value.isdigit() and len(value) <= 21):
        raise Invalid(f"{label}: Discord's id (digits; Developer Mode → Copy ID)", field=field)
    return value


def discord_page(
    services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED
) -> PanelPage:
    """The application, the rules and the log: three reads side by side (one round trip)."""
    repo = DiscordRepository(services.table)
    app_read = start_read(repo.app, session.account_id)
    rules_read = start_read(repo.rules, session.account_id)
    entries = repo.recent(session.account_id, LOG_SIZE)
    csrf = csrf_field(session) if session.may(Capability.SETTINGS_WRITE) else None
    app, rules = app_read.result(), rules_read.result()
    body = fragment(
        "panel/discord/index.html",
        app=app,
        rules=sorted(rules, key=lambda r: r.package_id),
        entries=entries,
        typed=typed,
        csrf=csrf,
    )
    return PanelPage("Discord", body, SECTION)


def check_with_discord(api: DiscordApi) -> tuple[str, str, list[GuildView]]:
    """The bot's id and name, and its guilds with their roles and the bot's highest position."""
    try:
        bot = api.bot_user()
        guilds = []
        for guild in api.bot_guilds():
            roles = api.guild_roles(guild.id)
            member = api.get_member(guild.id, bot.id)
            held = member.roles if member else frozenset()
            top = max((r.position for r in roles if r.id in held), default=0)
            guilds.append(
                GuildView(
                    id=guild.id,
                    name=guild.name,
                    roles=[
                        GuildRoleView(id=r.id, name=r.name, position=r.position)
                        for r in sorted(roles, key=lambda r: -r.position)
                        if r.name != "@everyone" and not r.managed
                    ],
                    bot_top=top,
                )
            )
    except DiscordRefused as exc:
        if exc.status == 401:
            raise Invalid(
                "Bot token: Discord refused it (401); copy it again from the Bot page", field="bot_token"
            ) from exc
        raise Invalid(f"Discord refused the check: {exc}", field="bot_token") from exc
    except DiscordRetryLater as exc:
        raise Invalid(
            f"Discord could not be reached to check the bot, try again: {exc}", field="bot_token"
        ) from exc
    return bot.id, bot.display_name, guilds


def check_client(api: DiscordApi) -> None:
    """The client id and secret, checked with Discord's token endpoint (client credentials)."""
    try:
        api.check_client()
    except DiscordRefused as exc:
        raise Invalid(
            f"Client secret: Discord refused it with this client id ({exc.status}); copy it again "
            "from the OAuth2 page",
            field="client_secret",
        ) from exc
    except DiscordRetryLater as exc:
        raise Invalid(
            f"Discord could not be reached to check the client secret, try again: {exc}",
            field="client_secret",
        ) from exc


def connect(
    services: Services,
    session: StaffSession,
    form: Mapping[str, str],
    *,
    api_factory: ApiFactory | None = None,
) -> str:
    """Save the application and bot after checking the bot token and the client secret with
    Discord (nothing saved when either is refused). A secret left blank keeps the stored one
    (the fields are write-only)."""
    client_id = _snowflake(form.get("client_id", ""), "Client id", "client_id")
    secret, token = form.get("client_secret", "").strip(), form.get("bot_token", "").strip()
    public_key = form.get("public_key", "").strip().lower()
    if public_key and (len(public_key) != 64 or any(c not in "0123456789abcdef" for c in public_key)):
        raise Invalid(
            "Public key: the 64 hexadecimal characters of the General Information page", field="public_key"
        )
    for value, label, field in (
        (secret, "Client secret", "client_secret"),
        (token, "Bot token", "bot_token"),
    ):
        if len(value) > MAX_SECRET or any(c.isspace() for c in value):
            raise Invalid(f"{label}: at most {MAX_SECRET} characters, no spaces", field=field)
    repo = DiscordRepository(services.table)
    current = repo.app(session.account_id)
    box = services.secrets
    if current is None and not (secret and token):
        raise Invalid(
            "Client secret and bot token are both needed to connect",
            field="bot_token" if secret else "client_secret",
        )
    secret = secret or open_sealed(box, current.client_secret_sealed if current else "")
    token = token or open_sealed(box, current.bot_token_sealed if current else "")
    make = api_factory or (
        lambda cid, sec, tok: HttpDiscord(
            client_id=cid, client_secret=sec, bot_token=tok, base_url=services.settings.discord_api_url
        )
    )
    api = make(client_id, secret, token)
    bot_id, bot_name, guilds = check_with_discord(api)
    check_client(api)
    now = services.now()
    app = DiscordApp(
        reconcile_sk=current.reconcile_sk if current else "",
        client_id=client_id,
        client_secret_sealed=seal(box, secret),
        bot_token_sealed=seal(box, token),
        public_key=public_key,
        bot_user_id=bot_id,
        bot_name=bot_name,
        guilds_join=bool(form.get("guilds_join")),
        guilds=guilds,
        updated_at=now,
    )
    said = [
        changed("client_id", current.client_id if current else "", client_id),
        *(["client_secret: changed"] if form.get("client_secret", "").strip() else []),
        *(["bot_token: changed"] if form.get("bot_token", "").strip() else []),
        changed("guilds_join", current.guilds_join if current else None, app.guilds_join),
    ]
    repo.save_app(session.account_id, app, Audit(actor(session), "discord.connect", "; ".join(said), now))
    return done_at(PATH, f"Connected as {bot_name}: the bot is in {len(guilds)} server(s)")


def save_rule(services: Services, session: StaffSession, form: Mapping[str, str]) -> str:
    """One package's guild and roles (no roles: the package grants none)."""
    raw = form.get("package_id", "").strip()
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 2_147_483_647:
        raise Invalid("Package: its id, e.g. 1", field="package_id")
    package_id = int(raw)
    repo = DiscordRepository(services.table)
    app = repo.app(session.account_id)
    if app is None:
        raise Invalid("Connect the application and bot first", field="guild_id")
    guild_id = _snowflake(form.get("guild_id", ""), "Server", "guild_id")
    guild = app.guild(guild_id)
    if guild is None:
        raise Invalid(
            "Server: the bot is not in it (invite the bot, then save the connection again)", field="guild_id"
        )
    roles = [r.strip() for r in form.get("role_ids", "").replace(",", " ").split() if r.strip()]
    if len(roles) > MAX_ROLES:
        raise Invalid(f"Roles: at most {MAX_ROLES}", field="role_ids")
    for role in roles:
        _snowflake(role, "Roles", "role_ids")
        if not any(r.id == role for r in guild.roles):
            raise Invalid(f"Roles: {role} is not a role of {guild.name}", field="role_ids")
        if not guild.manageable(role):
            raise Invalid(
                f"Roles: the bot's highest role must sit above {guild.role_name(role)} "
                "(Server Settings → Roles: drag the bot's role above it, then save the connection again)",
                field="role_ids",
            )
    rule = RoleRule(package_id, guild_id, frozenset(roles), bool(form.get("remove_on_end")))
    names = ", ".join(guild.role_name(r) for r in sorted(roles)) or "none"
    summary = f"package {package_id}: {guild.name} roles {names}, remove on end {rule.remove_on_end}"
    repo.save_rule(session.account_id, rule, Audit(actor(session), "discord.rule", summary, services.now()))
    return done_at(PATH, f"Package {package_id}: Discord roles saved")


def reconcile(
    services: Services,
    session: StaffSession,
    form: Mapping[str, str],
    now: datetime,
    *,
    api: DiscordApi | None = None,
) -> str:
    """ "Retry now" (one player: `player`) or "Reconcile now" (every linked player): their roles
    read from Discord and repaired."""
    repo = DiscordRepository(services.table)
    app = repo.app(session.account_id)
    if app is None:
        raise NotFound("No Discord application is connected")
    api = api or api_of(services, app)
    raw = form.get("player", "").strip()
    if raw:
        if not (raw.isascii() and raw.isdigit()):
            raise Invalid("Player: a player id", field="player")
        players = [int(raw)]
    else:
        players = repo.linked_players(session.account_id)
    return done_at(PATH, reconcile_players(services, api, session.account_id, players, now).describe())
