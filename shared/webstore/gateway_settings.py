"""A store's payment gateways: the catalog file's `gateways` section and how it is stored.

The owner's Stripe keys arrive in the catalog file; the secret key and the webhook signing
secret are sealed (webstore.secret_box) before they reach the store item, so the item, a
backup or an export alone reveals neither, and only functions that declare
`Access.GATEWAY_KEY` can open them. The publishable key is public by design (it is in the page).

Which gateway a store pays with: Stripe when it has keys, else the sandbox. A production stage
(`Settings.production`) refuses the sandbox unless the catalog says `sandbox: true`, so nobody
ships a store that hands out ranks for free; test keys and the sandbox may sit side by side,
live keys may not.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from pydantic import BaseModel, ConfigDict, Field, model_validator

_PUBLISHABLE = re.compile(r"^pk_(test|live)_[A-Za-z0-9]{8,250}$")
_SECRET = re.compile(r"^(sk|rk)_(test|live)_[A-Za-z0-9]{8,250}$")
_WEBHOOK_SECRET = re.compile(r"^whsec_[A-Za-z0-9]{8,250}$")
# The shapes of the secrets (the panel checks a typed secret's shape before asking Stripe).
SECRET_KEY_SHAPE = _SECRET
WEBHOOK_SECRET_SHAPE = _WEBHOOK_SECRET


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class StripeKeys(_Model):
    """`gateways.stripe` of a catalog file: the keys from the owner's Stripe dashboard. A secret
    left out keeps the one the store has (`webstore export` leaves them out; the panel's blank
    field); a store without one yet needs it."""

    publishable_key: str = Field(pattern=_PUBLISHABLE.pattern)
    secret_key: str | None = Field(default=None, pattern=_SECRET.pattern, repr=False)
    webhook_secret: str | None = Field(default=None, pattern=_WEBHOOK_SECRET.pattern, repr=False)

    @property
    def test_mode(self) -> bool:
        return self.publishable_key.startswith("pk_test_")

    @model_validator(mode="after")
    def _same_mode(self) -> StripeKeys:
        if self.secret_key is None:
            return self
        secret_test = self.secret_key[3:].startswith("test_")
        if secret_test != self.test_mode:
            raise ValueError("publishable_key and secret_key must both be test keys or both live keys")
        return self


class GatewaysSection(_Model):
    """The catalog file's `gateways` section."""

    stripe: StripeKeys | None = None
    # Keep the sandbox gateway: needed in a production stage to run a store on the sandbox at
    # all, and allowed beside Stripe test keys only (never beside live keys).
    sandbox: bool | None = None

    @model_validator(mode="after")
    def _sandbox_only_beside_test_keys(self) -> GatewaysSection:
        if self.sandbox and self.stripe is not None and not self.stripe.test_mode:
            raise ValueError("sandbox: true is refused beside live Stripe keys (test keys only)")
        return self

    def sealed(self, seal: Callable[[str], str], kept: StoredStripe | None = None) -> StoredGateways:
        """As the store item holds it: the secrets given sealed (`seal`: webstore.sealing's
        under the stage's box), those left out taken from `kept`
        (the store's current Stripe account; ValueError naming the field when there is none to
        keep, or when it is in the other mode than the publishable key)."""
        stripe = self.stripe
        if stripe is None:
            return StoredGateways(stripe=None, sandbox=self.sandbox)
        if kept is not None and kept.test_mode != stripe.test_mode and stripe.secret_key is None:
            mode = "test" if stripe.test_mode else "live"
            raise ValueError(f"secret_key: required: the store's secret key is not a {mode} key")

        def sealed_or_kept(name: str, value: str | None, kept_value: str | None) -> str:
            if value is not None:
                return seal(value)
            if kept_value is None:
                raise ValueError(f"{name}: required: the store has no Stripe {name} yet")
            return kept_value

        return StoredGateways(
            stripe=StoredStripe(
                publishable_key=stripe.publishable_key,
                secret_key_sealed=sealed_or_kept(
                    "secret_key", stripe.secret_key, kept.secret_key_sealed if kept else None
                ),
                webhook_secret_sealed=sealed_or_kept(
                    "webhook_secret", stripe.webhook_secret, kept.webhook_secret_sealed if kept else None
                ),
                test_mode=stripe.test_mode,
            ),
            sandbox=self.sandbox,
        )

    @classmethod
    def of(cls, stored: StoredGateways, open_sealed: Callable[[str], str] | None) -> GatewaysSection:
        """A store's gateways as a catalog file has them: the secrets opened with `open_sealed`
        (webstore.sealing's under the stage's box), or left out without it (a re-import then
        keeps them)."""
        box = open_sealed
        stripe = stored.stripe
        return cls(
            stripe=StripeKeys(
                publishable_key=stripe.publishable_key,
                secret_key=box(stripe.secret_key_sealed) if box else None,
                webhook_secret=box(stripe.webhook_secret_sealed) if box else None,
            )
            if stripe
            else None,
            sandbox=stored.sandbox,
        )


class StoredStripe(_Model):
    """A store's Stripe account as the store item holds it: secrets sealed."""

    publishable_key: str
    secret_key_sealed: str = Field(repr=False)
    webhook_secret_sealed: str = Field(repr=False)
    test_mode: bool = True


class StoredGateways(_Model):
    """The store item's `gateways`: never shown in a response (views pick their fields)."""

    stripe: StoredStripe | None = None
    sandbox: bool | None = None

    def sandbox_allowed(self, production: bool) -> bool:
        """Whether the sandbox may take this store's checkouts in this stage."""
        return bool(self.sandbox) if production else True


STRIPE_WEBHOOK_PATH = "/webhooks/stripe/{token}"


def stripe_webhook_url(storefront_url: str, public_token: str) -> str:
    """What the owner registers in the Stripe dashboard: the store's processor-webhook route."""
    return storefront_url.rstrip("/") + STRIPE_WEBHOOK_PATH.format(token=public_token)
