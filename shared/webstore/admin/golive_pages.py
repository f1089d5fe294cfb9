"""The panel's "Go live" page (`/go-live`): what an owner needs to take real payments and what
other people need from them, in one place.

- Stripe: connected or not, test or live mode, the webhook URL with the events it needs, and
  the keys' form. Saving checks the secret key with Stripe first and, without a webhook secret
  typed or kept, registers the webhook endpoint in Stripe and keeps its signing secret
  (webstore.checkout.stripe_setup); the secrets are write-only (blank keeps the store's) and a
  refused form keeps, sealed, the secrets that were right.
  The time and type of the last verified Stripe event received (repo.processor_events).
- The shop developer's headless URL and public token.
- Each server's plugin URL, and a confirmed secret rotation (the new secret is shown once, by
  the servers' own route: only its hash is stored, so there is nothing to reveal).

Reads: the store item, the catalog revision, the servers and the last Stripe event's item,
issued together (one round trip).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime

from webstore.admin import catalog as edits
from webstore.admin import servers as server_cases
from webstore.admin.catalog_pages import revision_of
from webstore.admin.flow import NONE_TYPED, PanelPage, done_at
from webstore.checkout.stripe_setup import (
    SECRET_FIELDS,
    STRIPE_EVENTS,
    carried,
    carry,
    check_keys,
    needs_endpoint,
    register_endpoint,
    stripe_status,
)
from webstore.errors import DomainError
from webstore.html import fragment
from webstore.repo import start_read
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.processor_events import STRIPE, ProcessorEventRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services

PATH = "/go-live"
_SANDBOX_CHOICES = (("", "the default for this stage"), ("on", "allowed"), ("off", "refused"))


def headless_url(storefront_url: str, public_token: str) -> str:
    """The base of the store's headless API (the shop developer's `{headless_url}`)."""
    return f"{storefront_url.rstrip('/')}/api/accounts/{public_token}"


def go_live_page(
    services: Services,
    account_id: int,
    *,
    csrf_token: str,
    may_write: Callable[[], bool],
    may_rotate: Callable[[], bool],
    typed: Mapping[str, str] = NONE_TYPED,
    error: DomainError | None = None,
) -> PanelPage:
    """The page; with `error`, the Stripe form as typed (secrets carried sealed) and why."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    servers_read = start_read(server_cases.servers, services, account_id)
    last_read = start_read(ProcessorEventRepository(services.table).last_received, account_id, STRIPE)
    store = StoreRepository(services.table).store(account_id)
    revision, servers, last_event = revision_read.result(), servers_read.result(), last_read.result()
    stripe = stripe_status(services, store.public_token, store.gateways.stripe)
    stored_sandbox = store.gateways.sandbox
    sandbox = (
        typed.get("sandbox", "")
        if error
        else ("" if stored_sandbox is None else "on" if stored_sandbox else "off")
    )
    body = fragment(
        "panel/golive/page.html",
        csrf_token=csrf_token,
        revision=str(revision),
        can_write=may_write(),
        can_rotate=may_rotate(),
        stripe=stripe,
        last_event=last_event,
        events=STRIPE_EVENTS,
        error=error.detail if error else "",
        publishable_key=typed.get("publishable_key", "") if error else stripe.publishable_key,
        carried=typed if error else {},
        secret_fields=SECRET_FIELDS,
        sandbox=sandbox,
        sandbox_choices=_SANDBOX_CHOICES,
        production=services.settings.production,
        headless_url=headless_url(services.settings.storefront_url, store.public_token),
        public_token=store.public_token,
        plugin_url=services.settings.operator_url,
        servers=servers,
    )
    return PanelPage("Go live", body, "golive")


def save_stripe_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    """The Stripe keys checked with Stripe (a typed secret key), then saved in one catalog edit."""
    secret_key = carried(services, form, "secret_key")
    webhook_secret = carried(services, form, "webhook_secret")
    publishable_key = form.get("publishable_key", "")
    account = check_keys(
        services, publishable_key=publishable_key, secret_key=secret_key, webhook_secret=webhook_secret
    )
    registered = False
    if account is not None:
        store = StoreRepository(services.table).store(account_id)
        if needs_endpoint(store.gateways.stripe, account, webhook_secret):
            webhook_secret = register_endpoint(services, secret_key.strip(), store.public_token)
            registered = True
    saved = edits.save_gateways(
        services,
        account_id,
        publishable_key=publishable_key,
        secret_key=secret_key,
        webhook_secret=webhook_secret,
        sandbox={"on": True, "off": False}.get(form.get("sandbox", "")),
        actor=actor,
        revision=revision_of(form),
        now=now,
    )
    if isinstance(saved, edits.Saved) and saved.unchanged:
        return done_at(PATH, "No changes")
    if account is not None:
        mode = "live" if account.live else "test"
        endpoint = "; the webhook endpoint is registered in Stripe" if registered else ""
        return done_at(PATH, f"Saved: Stripe accepted the secret key ({mode} mode){endpoint}")
    return done_at(PATH, "Saved")


def go_live_again(
    services: Services,
    account_id: int,
    form: dict[str, str],
    error: DomainError,
    *,
    csrf_token: str,
    may_rotate: Callable[[], bool],
) -> PanelPage:
    """The page with the Stripe form as typed: the publishable key and the sandbox choice in the
    clear, each secret that passed its checks sealed in a hidden field, the refused one empty."""
    typed = {k: form.get(k, "") for k in ("publishable_key", "sandbox")}
    typed.update(carry(services, form, error.field))
    return go_live_page(
        services,
        account_id,
        csrf_token=csrf_token,
        may_write=lambda: True,
        may_rotate=may_rotate,
        typed=typed,
        error=error,
    )
