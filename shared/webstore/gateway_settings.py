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

from pydantic import BaseModel, ConfigDict, Field, model_validator

from webstore.secret_box import SecretBox

_PUBLISHABLE = re.compile(r"^pk_(test|live)_[A-Za-z0-9]{8,250}$")
_SECRET = re.compile(r"^(sk|rk)_(test|live)_[A-Za-z0-9]{8,250}$")
_WEBHOOK_SECRET = re.compile(r"^whsec_[A-Za-z0-9]{8,250}$")


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


class StripeKeys(_Model):
    """`gateways.stripe` of a catalog file: the keys from the owner's Stripe dashboard."""

    publishable_key: str = Field(pattern=_PUBLISHABLE.pattern)
    secret_key: str = Field(pattern=_SECRET.pattern, repr=False)
    webhook_secret: str = Field(pattern=_WEBHOOK_SECRET.pattern, repr=False)

    @property
    def test_mode(self) -> bool:
        return self.publishable_key.startswith("pk_test_")

    @model_validator(mode="after")
    def _same_mode(self) -> StripeKeys:
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

    def sealed(self, box: SecretBox) -> StoredGateways:
        stripe = (
            StoredStripe(
                publishable_key=self.stripe.publishable_key,
                secret_key_sealed=box.seal(self.stripe.secret_key),
                webhook_secret_sealed=box.seal(self.stripe.webhook_secret),
                test_mode=self.stripe.test_mode,
            )
            if self.stripe
            else None
        )
        return StoredGateways(stripe=stripe, sandbox=self.sandbox)


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
