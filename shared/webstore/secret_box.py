"""Secrets the service must read back are sealed before they reach the table.

A webhook signing secret cannot be stored as a hash (HMAC needs the secret itself), so it is
stored encrypted and authenticated (Fernet: AES-128-CBC with HMAC-SHA256) under one key per
stage: a table item, a backup or an export alone does not reveal it. The key lives in Secrets
Manager in AWS (`WEBSTORE_WEBHOOK_KEY_SECRET`: its name, read through Powertools parameters
and cached) and in the environment for the local stack and tests (`WEBSTORE_WEBHOOK_KEY`).

Sealing and opening are `webstore.sealing`'s (the code that calls them imports it, and only
those functions carry the cryptography layer); the box holds the key and signs links.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    from webstore.settings import Settings

# How long a function trusts the key it read from Secrets Manager (seconds).
KEY_MAX_AGE = 300


class SealBroken(Exception):
    """A sealed value that this key cannot open: tampered with, or sealed under another key."""


class SecretBox:
    def __init__(self, key_material: Callable[[], str]) -> None:
        self._key_material = key_material

    def key_material(self) -> str:
        """The stage key (sealing: webstore.sealing)."""
        return self._key_material()

    def mac(self, purpose: str, message: str) -> bytes:
        """HMAC-SHA256 of `message` under a key derived from the stage key for `purpose` alone
        (signed links: nothing stored, checked by recomputing; one purpose's MAC is no other's)."""
        key = hashlib.sha256(f"webstore-mac:{purpose}:".encode() + self._key_material().encode()).digest()
        return hmac.new(key, message.encode(), hashlib.sha256).digest()


class NoKeyConfigured(RuntimeError):
    pass


@lru_cache(maxsize=2)
def _secrets_provider(region: str) -> SecretsProvider:
    """One provider per process: it holds Powertools' cache of the values it read."""
    import boto3
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    return SecretsProvider(boto3_client=boto3.client("secretsmanager", region_name=region))


def secret_box(settings: Settings) -> SecretBox:
    """The stage's box: the key from Secrets Manager when a secret is named, else from settings."""
    if settings.webhook_key_secret:
        name, region = settings.webhook_key_secret, settings.region

        def from_secrets_manager() -> str:
            return str(_secrets_provider(region).get(name, max_age=KEY_MAX_AGE))

        return SecretBox(from_secrets_manager)
    if settings.webhook_key is not None:
        key = settings.webhook_key.get_secret_value()
        return SecretBox(lambda: key)

    def missing() -> str:
        raise NoKeyConfigured(
            "No key to seal webhook secrets: set WEBSTORE_WEBHOOK_KEY_SECRET (a Secrets Manager "
            "secret, as the stack does) or WEBSTORE_WEBHOOK_KEY"
        )

    return SecretBox(missing)
