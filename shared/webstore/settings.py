"""One settings model, read from the environment, identical for Lambda and the local stack."""

from __future__ import annotations

from functools import lru_cache
from typing import Literal

from pydantic import SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WEBSTORE_", extra="ignore")

    table_name: str = "webstore"
    # A DynamoDB endpoint other than AWS's (DynamoDB Local, a moto server); None: AWS.
    dynamodb_endpoint: str | None = None
    region: str = "us-east-1"
    event_bus_name: str = "webstore"
    # eventbridge: publish to the bus (AWS); local: the in-process bus of the local stack.
    events: Literal["eventbridge", "local"] = "eventbridge"
    # Public base URLs (no trailing slash): links in responses and hosted pages use them.
    storefront_url: str = "http://127.0.0.1:8080"
    operator_url: str = "http://127.0.0.1:8081"
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
    # The key that seals webhook signing secrets in the table (webstore.secret_box): the name of
    # a Secrets Manager secret (AWS: the stack sets it for the functions that need it), or the
    # key material itself (the local stack and tests; never set in AWS).
    webhook_key_secret: str | None = None
    webhook_key: SecretStr | None = None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
