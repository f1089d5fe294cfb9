"""The panel's "Go live" page (`/go-live`): what an owner needs to take real payments and what
other people need from them, in one place.

- Stripe: connected or not, test or live mode, the webhook URL with the events it needs, and
  the keys' form. Saving checks the secret key with Stripe first and, without a webhook secret
  typed or kept, registers the webhook endpoint in Stripe and keeps its signing secret
  (webstore.checkout.stripe_setup); the secrets are write-only (blank keeps the store's) and a
  refused form keeps, sealed, the secrets that were right.
  The time and type of the last verified Stripe event received (repo.processor_events).
- The shop developer's headless URL and public token.
- The shop's URL and whether it is on a custom domain; whether e-mail to players is sent, and
  from which address (the stage's settings: `shopDomain`, `mailDomain`/`mailFrom`). With SES,
  the sending domain's live status through the mail port (`mail_status`: SES v2
  `GetEmailIdentity`, verified and DKIM signing or pending with the CNAMEs to publish, or why
  not); SES unreachable or refusing shows "could not check", never an error page.
- Each server's plugin URL, and a confirmed secret rotation (the new secret is shown once, by
  the servers' own route: only its hash is stored, so there is nothing to reveal).
- The seller's legal details the invoices need (`seller.*` on Settings) and the terms and
  refund policy (`legal_status`): the URLs the checkout links to, or the shop's pages of those
  slugs (`policy_links`: `terms`, `refunds`/`refund-policy`), and the store's tax mode
  (`tax_status`: none is a warning saying what the owner takes on; Stripe Tax needs the keys).
  Both from the store item already read.

- "Start here" while the store has no package: the first steps in order (name and currency,
  Stripe keys, a first package), each marked done or not, with its page, and the link back to
  the first-sign-in setup (webstore.admin.setup_pages).

Reads: the store item with its pages (one Query), the catalog revision, the servers, the last
Stripe event's item and whether a package exists (one key-only item), issued together (one
round trip). With SES, one more call, to SES (`GetEmailIdentity`), not to DynamoDB: the page
stays one DynamoDB round trip.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from urllib.parse import urlsplit

from webstore.admin import catalog as edits
from webstore.admin import servers as server_cases
from webstore.admin.catalog_pages import revision_of
from webstore.admin.flow import NONE_TYPED, PanelPage, done_at
from webstore.catalog import Page, Store, TaxCalculation, TaxMode
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
from webstore.mail import DomainChecker, DomainStatus, sender_domain
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


def custom_domain(url: str) -> bool:
    """Whether `url` is on a domain of the owner's (not API Gateway's default host, not local)."""
    host = urlsplit(url).hostname or ""
    return bool(host) and not (
        host.endswith(".amazonaws.com") or host in ("localhost", "127.0.0.1") or host.endswith(".localhost")
    )


@dataclass(frozen=True, slots=True)
class Row:
    """One go-live row: `state` is "ok" (green), "warn" (amber) or "todo" (red); `missing`
    names what is left to fill in."""

    state: str
    missing: tuple[str, ...] = ()


_SELLER_FIELDS = (
    ("legal_name", "legal name"),
    ("address", "address"),
    ("country", "country"),
    ("tax_number", "tax number"),
)


# The shop's pages that stand for a policy URL (webstore.shop.context.LEGAL_SLUGS puts `terms`
# and `refunds` in every shop page's footer; `refund-policy` is the other name owners give it).
POLICY_PAGES = {"terms": ("terms",), "refunds": ("refunds", "refund-policy")}


def policy_links(store: Store, pages: Sequence[Page], shop_url: str) -> dict[str, str]:
    """Where players read the terms (`terms`) and the refund policy (`refunds`): the store's
    URL, else its shop page of that slug (shown to players: not disabled, not private), at the
    shop's address; a policy with neither is left out."""
    shown = {p.slug for p in pages if not (p.disabled or p.private)}
    urls = {"terms": store.terms_url or "", "refunds": store.refund_policy_url or ""}
    links = {}
    for kind, slugs in POLICY_PAGES.items():
        slug = next((s for s in slugs if s in shown), None)
        if urls[kind]:
            links[kind] = urls[kind]
        elif slug is not None:
            links[kind] = f"{shop_url.rstrip('/')}/page/{slug}" if shop_url else f"/page/{slug}"
    return links


def legal_status(store: Store, links: Mapping[str, str] | None = None) -> Row:
    """Red while the seller's legal name, address, country or tax number (what an invoice names)
    is blank, or the terms or the refund policy has neither its URL (what the checkout links to)
    nor a shop page (`links`: policy_links; by default the URLs only)."""
    links = policy_links(store, (), "") if links is None else links
    missing = [label for name, label in _SELLER_FIELDS if not str(getattr(store.seller, name)).strip()]
    if "terms" not in links:
        missing.append("terms (URL or shop page)")
    if "refunds" not in links:
        missing.append("refund policy (URL or shop page)")
    return Row("todo" if missing else "ok", tuple(missing))


def tax_status(store: Store, stripe_connected: bool) -> Row:
    """Green when the store charges tax; amber when it charges none (the owner accounts for any
    tax due themselves), which a flat rate of 0% or manual rates all at 0% also mean; red when
    Stripe Tax decides but the store has no Stripe keys."""
    tax = store.tax
    if tax.mode is TaxMode.NONE:
        return Row("warn")
    if (tax.calculation is TaxCalculation.FLAT and not tax.rate) or (
        tax.calculation is TaxCalculation.MANUAL and not any(tax.rates.values())
    ):
        return Row("warn", ("a rate above 0%",))
    if tax.calculation is TaxCalculation.STRIPE_TAX and not stripe_connected:
        return Row("todo", ("Stripe keys",))
    return Row("ok")


def mail_status(services: Services) -> DomainStatus | None:
    """The sending domain's status at the provider (SES only: the local transports have none,
    and the page words them from the settings); any failure to ask is an "unknown" status."""
    if services.settings.mail_transport != "ses":
        return None
    sender = services.mail_sender()
    if not isinstance(sender, DomainChecker):
        return None
    return sender.domain_status(sender_domain(services.settings.mail_from))


def go_live_page(
    services: Services,
    account_id: int,
    *,
    csrf_token: str,
    may_write: Callable[[], bool],
    may_rotate: Callable[[], bool],
    typed: Mapping[str, str] = NONE_TYPED,
    error: DomainError | None = None,
    check_mail: bool = True,
) -> PanelPage:
    """The page; with `error`, the Stripe form as typed (secrets carried sealed) and why.
    `check_mail` False: the e-mail row from the settings only (a function without
    `ses:GetEmailIdentity`, the Stripe form's answer)."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    servers_read = start_read(server_cases.servers, services, account_id)
    last_read = start_read(ProcessorEventRepository(services.table).last_received, account_id, STRIPE)
    stores = StoreRepository(services.table)
    packages_read = start_read(stores.has_packages, account_id)
    view = stores.pages(account_id)  # the store and its pages (the policy pages): one Query
    mail = mail_status(services) if check_mail else None  # SES, not DynamoDB
    store = view.store
    links = policy_links(store, view.pages, services.settings.shop_url)
    revision, servers, last_event = revision_read.result(), servers_read.result(), last_read.result()
    has_packages = packages_read.result()
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
        shop_url=services.settings.shop_url,
        shop_custom_domain=custom_domain(services.settings.shop_url),
        mail_transport=services.settings.mail_transport,
        mail_from=services.settings.mail_from,
        mail=mail,
        servers=servers,
        legal=legal_status(store, links),
        seller=store.seller,
        terms_url=links.get("terms", ""),
        refund_policy_url=links.get("refunds", ""),
        terms_is_page=not store.terms_url,
        refunds_is_page=not store.refund_policy_url,
        tax=store.tax,
        tax_row=tax_status(store, stripe.connected),
        start_here=not has_packages,
        store_name=store.name,
        currency=store.currency,
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
        check_mail=False,
    )
