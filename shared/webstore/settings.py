"""One settings model, read from the environment, identical for Lambda and the local stack.

The values that say where the service lives (table, bus, public URLs) have no defaults: the CDK
stack, the local stack (infra/local.py) and the tests set them. `get_settings()` refuses to run
without them, naming the variable, and in Lambda it runs while the function initialises
(`check_at_cold_start`), so a misconfigured function fails its cold start, not some request.

A plain pydantic model over `os.environ`, not pydantic-settings: that library and its imports
cost more of every cold start than the whole settings model (docs/deploy.md, "Cold start"),
for sources (dotenv files, secrets directories, nested JSON) we do not use. Same rules as it
had: `WEBSTORE_` prefix, names case-insensitive, values given to `Settings(...)` win.
"""

import os
from functools import lru_cache
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, field_validator

ENV_PREFIX = "WEBSTORE_"


class MissingSettings(RuntimeError):
    """Required settings are not in the environment; the message names each variable."""


def environment_values() -> dict[str, str]:
    """`WEBSTORE_X=v` of the environment as `{"x": "v"}` (any case, as pydantic-settings read them)."""
    start = len(ENV_PREFIX)
    return {
        name[start:].lower(): value
        for name, value in os.environ.items()
        if name[:start].upper() == ENV_PREFIX
    }


class Settings(BaseModel):
    model_config = ConfigDict(extra="ignore")

    def __init__(self, **values: Any) -> None:
        super().__init__(**{**environment_values(), **values})

    # Required (see `missing`): empty means not set.
    table_name: str = ""
    # A DynamoDB endpoint other than AWS's (DynamoDB Local, a moto server); None: AWS.
    dynamodb_endpoint: str | None = None
    region: str = "us-east-1"
    # Required when events is eventbridge.
    event_bus_name: str = ""
    # eventbridge: publish to the bus (AWS); local: the in-process bus of the local stack.
    events: Literal["eventbridge", "local"] = "eventbridge"
    # Public base URLs (no trailing slash): links in responses and hosted pages use them. Required.
    storefront_url: str = ""
    operator_url: str = ""
    # Webhook endpoints on loopback/private addresses are refused unless this is set (local use).
    allow_private_webhooks: bool = False
    # Overrides every server's queue `next_check` (seconds) when set (`webstore serve --next-check`).
    next_check_override: int | None = None
    # How long a verified server secret is trusted without asking the table again (seconds).
    secret_cache_seconds: int = 60
    # Brute-force guard on operator secrets: this many wrong secrets per client address
    # within the window get 429 until the window ends.
    secret_failures_allowed: int = 20
    secret_failure_window_seconds: int = 300
    max_body_bytes: int = 65_536
    # The control panel (docs/panel.md, "Security model"): its public base URL (links in the
    # serve output; optional), how long a staff session lasts, and the memory argon2id uses per
    # password hash (KiB; 64 MiB by default, as argon2-cffi's RFC 9106 low-memory profile; the
    # tests set a small value so a login costs milliseconds — never lower it in a deployment).
    admin_url: str = ""
    # The players' shop (docs/shop.md): its public base URL (the address players browse; links
    # in the serve output and the demo store's `webstore_url`; optional) and the store it sells
    # for (the account id: one shop per deployment; 0: no shop, its pages answer 404).
    shop_url: str = ""
    shop_store_id: int = Field(default=0, ge=0, le=2**31 - 1)
    admin_session_hours: int = Field(default=12, ge=1, le=24 * 30)
    password_hash_memory_kib: int = Field(default=65_536, ge=64)
    # The key that seals webhook signing secrets in the table (webstore.secret_box): the name of
    # a Secrets Manager secret (AWS: the stack sets it for the functions that need it), or the
    # key material itself (the local stack and tests; never set in AWS).
    webhook_key_secret: str | None = None
    webhook_key: SecretStr | None = None
    # A production stage (the CDK stack sets it from its stage): the sandbox gateway is refused
    # there unless a store's catalog says `gateways.sandbox: true`.
    production: bool = False
    # Where the Stripe adapter sends its API calls (None: Stripe's own; a localstripe address
    # for local runs and tests: `webstore serve --stripe-api-base`), and where the checkout page
    # loads Stripe.js from (a stand-in in the browser tests).
    stripe_api_base: str | None = None
    stripe_js_url: str = "https://js.stripe.com/v3/"
    # Online-mode Minecraft stores resolve usernames to accounts through Mojang's public profile
    # lookup at this base URL (`GET {base}/users/profiles/minecraft/{name}`); the local stack and
    # tests point it at a stand-in (`webstore serve --identity-base-url`). docs/players.md.
    identity_base_url: str = "https://api.mojang.com"
    # How long one lookup may take before the auth page says the name service is unavailable.
    identity_timeout_seconds: float = Field(default=3.0, gt=0, le=10)
    # Stores of Steam games sign players in through Steam's OpenID 2.0 endpoint (redirect, then
    # `check_authentication` posted back to it); tests and the local stack point it at a
    # stand-in. docs/players.md, "Steam".
    steam_openid_url: str = "https://steamcommunity.com/openid/login"
    # Discord (docs/discord.md): its HTTP API and its OAuth2 authorize page; tests and the local
    # stack point both at the loopback stand-in (tests/support/discord_standin.py).
    discord_api_url: str = "https://discord.com/api/v10"
    discord_authorize_url: str = "https://discord.com/oauth2/authorize"
    # Steam's Web API (`GET {base}/ISteamUser/GetPlayerSummaries/v2/`): the persona name of a
    # player who signed in through Steam, when the store has a Web API key; tests point it at
    # the stand-in.
    steam_web_api_url: str = "https://api.steampowered.com"

    # E-mail to players (docs/mail.md): how messages leave (ses: Amazon SES v2, the stack sets
    # it; smtp: a relay at `mail_smtp` host:port; files: `.eml` files in `mail_dir`; off: none),
    # the sender address (a verified SES identity's), and SES's configuration set.
    mail_transport: Literal["ses", "smtp", "files", "off"] = "off"
    mail_from: str = "no-reply@localhost"
    mail_smtp: str = ""
    mail_dir: str = ""
    mail_configuration_set: str = ""

    @field_validator(
        "identity_base_url",
        "steam_openid_url",
        "steam_web_api_url",
        "discord_api_url",
        "discord_authorize_url",
    )
    @classmethod
    def _absolute_http_url(cls, value: str) -> str:
        scheme, _, rest = value.partition("://")
        if scheme not in ("https", "http") or not rest.split("/")[0]:
            raise ValueError("must be an absolute http(s) URL, e.g. https://api.mojang.com")
        return value.rstrip("/")

    def missing(self) -> list[str]:
        """The environment variables of required settings that are not set."""
        required = ["table_name", "storefront_url", "operator_url"]
        if self.events == "eventbridge":
            required.append("event_bus_name")
        return [f"{ENV_PREFIX}{name.upper()}" for name in required if not getattr(self, name)]


def load_settings() -> Settings:
    """The settings of a running service: every required value present, or MissingSettings."""
    settings = Settings()
    missing = settings.missing()
    if missing:
        raise MissingSettings(
            f"Missing required setting{'s' if len(missing) > 1 else ''}: {', '.join(missing)} "
            "(the CDK stack sets them for every function; the local stack and tests set them too)"
        )
    return settings


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return load_settings()


def check_at_cold_start() -> None:
    """In Lambda, read and check the settings while the function initialises (at import), so a
    missing variable fails the cold start with its name. Elsewhere (CDK synth, tools importing
    the route table) nothing is read until a request needs it."""
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME"):
        get_settings()
