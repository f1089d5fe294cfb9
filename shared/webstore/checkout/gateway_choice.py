"""Which gateway takes a store's payments: its Stripe account when the catalog gives keys,
else the sandbox, which a production stage refuses unless the catalog says `sandbox: true`
(webstore.gateway_settings). No round trip: the gateways ride in the store item every
checkout reads already."""

from __future__ import annotations

from webstore.catalog import Store
from webstore.checkout.gateway import PaymentGateway, SandboxGateway
from webstore.checkout.stripe_gateway import StripeGateway
from webstore.errors import Conflict
from webstore.sealing import open_sealed
from webstore.services import Services

SANDBOX_AUTHENTICATION_PATH = "/sandbox/authentication"  # + /{store token}/{charge key}
STRIPE_AUTHENTICATION_PATH = "/renewal-payments"  # + /{store token}/{charge key}


class NoGateway(Conflict):
    """A production store without Stripe keys that did not opt into the sandbox."""

    def __init__(self) -> None:
        super().__init__("This store is not set up to take payments yet (no payment gateway).")


def stripe_of(services: Services, store: Store) -> StripeGateway | None:
    """The store's Stripe account, its secret key opened on the first call to Stripe."""
    stripe = store.gateways.stripe
    if stripe is None:
        return None
    sealed = stripe.secret_key_sealed
    return StripeGateway(
        lambda: open_sealed(services.secrets, sealed),
        publishable_key=stripe.publishable_key,
        api_base=services.settings.stripe_api_base,
        account_id=store.id,
        authentication_page=f"{services.settings.storefront_url}{STRIPE_AUTHENTICATION_PATH}/{store.public_token}",
    )


def gateway_for_store(services: Services, store: Store) -> PaymentGateway:
    """Stripe when the store has keys; the sandbox where allowed; else NoGateway (409)."""
    stripe = stripe_of(services, store)
    if stripe is not None:
        return stripe
    if not store.gateways.sandbox_allowed(services.settings.production):
        raise NoGateway()
    return SandboxGateway(authentication_page=sandbox_authentication_page(services, store))


def sandbox_authentication_page(services: Services, store: Store) -> str:
    """Where the sandbox's player authenticates an off-session charge (the charge key follows)."""
    return f"{services.settings.storefront_url}{SANDBOX_AUTHENTICATION_PATH}/{store.public_token}"


def gateway_refusal(services: Services, store: Store) -> str:
    """Why the store cannot take a payment in this stage ("" when it can)."""
    if store.gateways.stripe is None and not store.gateways.sandbox_allowed(services.settings.production):
        return NoGateway().detail
    return ""


def webhook_secret(services: Services, store: Store) -> str | None:
    """The store's Stripe webhook signing secret, opened (None: no Stripe account)."""
    stripe = store.gateways.stripe
    return open_sealed(services.secrets, stripe.webhook_secret_sealed) if stripe else None
