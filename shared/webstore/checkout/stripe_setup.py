"""Connecting a store to Stripe from the panel: the keys checked with Stripe before they are
saved, and what the owner needs to finish the setup (the webhook URL, the mode).

A secret key typed in the panel is proved by one authenticated read through the gateway port
(`StripeGateway.account`: `GET /v1/account`, the official library). Stripe refusing it (unknown,
revoked, expired) is a 422 naming the field; a live account Stripe does not let take charges
yet is refused too (its first checkout would fail); Stripe unreachable is a 409 to try again.
Nothing is saved in either case. A key that is not a key's shape is left to the catalog's check,
which names the mistake as `webstore import` does, without a call to Stripe.

A refused form comes back with the secrets that passed their checks carried sealed
(`carry`/`carried`): the owner retypes only the field that was wrong, and no secret is ever
written into a page in the clear.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from webstore.checkout.stripe_gateway import StripeAccount, StripeGateway
from webstore.errors import Conflict, Invalid
from webstore.gateway_settings import (
    SECRET_KEY_SHAPE,
    WEBHOOK_SECRET_SHAPE,
    StoredStripe,
    StripeKeys,
    stripe_webhook_url,
)
from webstore.sealing import open_sealed, seal
from webstore.secret_box import SealBroken
from webstore.services import Services

SECRET_FIELDS = ("secret_key", "webhook_secret")
_PATTERNS = {"secret_key": SECRET_KEY_SHAPE, "webhook_secret": WEBHOOK_SECRET_SHAPE}
_CARRY = "carry:{field}:"


class StripeUnreachable(Conflict):
    def __init__(self) -> None:
        super().__init__("Stripe could not be reached to check the key; nothing was saved, try again")


def check_keys(
    services: Services, *, publishable_key: str, secret_key: str, webhook_secret: str
) -> StripeAccount | None:
    """The account a typed secret key opens at Stripe; None without one, or when the keys are not
    well formed together (shapes, one mode: the catalog's check then names the mistake, and
    Stripe is not asked). Invalid (422) when Stripe refuses the key or a live account cannot take
    charges; StripeUnreachable (409) when Stripe does not answer."""
    from stripe import APIConnectionError, AuthenticationError, StripeError

    key = secret_key.strip()
    try:
        StripeKeys(
            publishable_key=publishable_key.strip(),
            secret_key=key,
            webhook_secret=webhook_secret.strip() or None,
        )
    except ValueError:
        return None
    gateway = StripeGateway(lambda: key, api_base=services.settings.stripe_api_base)
    try:
        account = gateway.account()
    except AuthenticationError:
        raise Invalid(
            "secret_key: Stripe refused this key (unknown, revoked or expired): copy it again from "
            "the Stripe dashboard, Developers > API keys",
            field="secret_key",
        ) from None
    except APIConnectionError:
        raise StripeUnreachable() from None
    except StripeError as error:
        raise Invalid(
            f"secret_key: Stripe did not accept the check ({error.user_message or 'no reason given'})",
            field="secret_key",
        ) from None
    if account.live and account.charges_enabled is False:
        raise Invalid(
            "secret_key: this live Stripe account cannot take charges yet: finish its activation in "
            "the Stripe dashboard, then save again",
            field="secret_key",
        )
    return account


def carry(services: Services, form: dict[str, str], refused_field: str | None) -> dict[str, str]:
    """The hidden `<field>_carried` values of a refused form: each secret typed in the right shape
    (and not the refused field) sealed, so the form again keeps it without showing it."""
    carried = {}
    for field in SECRET_FIELDS:
        typed = form.get(field, "").strip()
        if typed and field != refused_field and _PATTERNS[field].match(typed):
            carried[f"{field}_carried"] = seal(services.secrets, _CARRY.format(field=field) + typed)
        elif not typed and form.get(f"{field}_carried") and field != refused_field:
            carried[f"{field}_carried"] = form[f"{field}_carried"]
    return carried


def carried(services: Services, form: dict[str, str], field: str) -> str:
    """The secret typed in `field`, or the one carried sealed from the refused try ("": neither)."""
    typed = form.get(field, "").strip()
    if typed or not form.get(f"{field}_carried"):
        return typed
    prefix = _CARRY.format(field=field)
    try:
        opened = open_sealed(services.secrets, form[f"{field}_carried"])
    except SealBroken:
        opened = ""
    if not opened.startswith(prefix):
        raise Invalid(f"{field}: the kept value cannot be read; type it again", field=field)
    return opened.removeprefix(prefix)


# What the store's Stripe webhook endpoint must send (docs/stripe.md, "What each Stripe event does").
STRIPE_EVENTS = (
    "payment_intent.succeeded",
    "payment_intent.payment_failed",
    "charge.refunded",
    "charge.dispute.created",
    "charge.dispute.closed",
)


def needs_endpoint(stored: StoredStripe | None, account: StripeAccount | None, webhook_secret: str) -> bool:
    """Whether the save registers the webhook endpoint in Stripe: a secret key just checked, no
    webhook secret typed, and none the store has for that mode."""
    if account is None or webhook_secret:
        return False
    return stored is None or stored.test_mode == account.live


def register_endpoint(services: Services, secret_key: str, store_token: str) -> str:
    """The store's webhook endpoint created in the Stripe account the key opens, with exactly
    the events the platform handles; its signing secret. The idempotency key is the store's and
    the key's, so a save tried again does not make a second endpoint."""
    from stripe import StripeError

    url = stripe_webhook_url(services.settings.storefront_url, store_token)
    digest = hashlib.sha256(f"{store_token}:{secret_key}".encode()).hexdigest()[:32]
    gateway = StripeGateway(lambda: secret_key, api_base=services.settings.stripe_api_base)
    try:
        return gateway.create_webhook_endpoint(url, list(STRIPE_EVENTS), idempotency_key=f"endpoint-{digest}")
    except StripeError as error:
        raise Invalid(
            "webhook_secret: Stripe did not create the webhook endpoint "
            f"({error.user_message or 'no reason given'}): add it in the Stripe dashboard and paste "
            "its signing secret",
            field="webhook_secret",
        ) from None


@dataclass(frozen=True)
class StripeStatus:
    """What the go-live page says of a store's Stripe connection."""

    connected: bool
    mode: str  # "test", "live" or ""
    publishable_key: str
    webhook_url: str


def stripe_status(services: Services, store_token: str, stripe: StoredStripe | None) -> StripeStatus:
    url = stripe_webhook_url(services.settings.storefront_url, store_token)
    if stripe is None:
        return StripeStatus(False, "", "", url)
    return StripeStatus(True, "test" if stripe.test_mode else "live", stripe.publishable_key, url)
