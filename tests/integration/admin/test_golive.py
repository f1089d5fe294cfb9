"""The panel's go-live page and its Stripe form through the real handlers under moto, the keys
checked with the official `stripe` library against localstripe: a key Stripe refuses is a 422
that keeps what was right (sealed, never in the page), blank secrets keep the stored ones, the
page shows the webhook URL, the mode, the headless URL and token and each server's plugin URL,
and the first checkout after the setup pays; the e-mail row asks SES (moto's sesv2) about the
sending domain: no identity, pending with its DKIM CNAMEs, verified, or SES out of reach."""

from __future__ import annotations

import re
from collections.abc import Iterator

import boto3
import pytest
from moto.core import DEFAULT_ACCOUNT_ID
from moto.ses.models import ses_backends

from functions.admin import get_go_live, save_gateways
from functions.storefront import get_checkout_return
from tests.integration.admin.test_catalog_handlers import revision_of
from tests.integration.storefront.test_checkout import new_basket, payments
from tests.integration.stripe.test_stripe_webhook import page_intent
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.localstripe import (
    TEST_PUBLISHABLE_KEY,
    TEST_SECRET_KEY,
    TEST_WEBHOOK_SECRET,
    localstripe,
    pay_in_page,
)
from tests.support.panel import PanelClient, signed_in
from tests.support.round_trips import CallCounter
from webstore import services as services_module
from webstore.admin.roles import Role
from webstore.repo.store import StoreRepository
from webstore.sealing import open_sealed
from webstore.services import get_services

KEYS = {
    "publishable_key": TEST_PUBLISHABLE_KEY,
    "secret_key": TEST_SECRET_KEY,
    "webhook_secret": TEST_WEBHOOK_SECRET,
}


@pytest.fixture(scope="module")
def stripe_api() -> Iterator[str]:
    with localstripe() as base:
        yield base


@pytest.fixture
def stripe_reachable(
    demo: DemoStore, stripe_api: str, monkeypatch: pytest.MonkeyPatch
) -> Iterator[DemoStore]:
    """The demo store (no Stripe keys yet), its Stripe calls sent to localstripe."""
    monkeypatch.setenv("WEBSTORE_STRIPE_API_BASE", stripe_api)
    services_module.reset()
    yield demo
    services_module.reset()


def save(owner: PanelClient, **fields: str) -> tuple[int, str, str]:
    """Post the Stripe form as the go-live page has it: (status, location, body)."""
    page = owner.get(get_go_live.handler, "/go-live")
    carried = dict(re.findall(r'name="(\w+_carried)" value="([^"]+)"', page.body))
    answer = owner.post(
        save_gateways.handler, "/settings/gateways", {"revision": revision_of(page.body), **carried, **fields}
    )
    return answer.status, answer.headers.get("location", ""), answer.body


def test_the_page_says_what_to_register_and_the_checked_keys_make_the_first_checkout_pay(
    stripe_reachable: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    demo = stripe_reachable
    owner = signed_in(Role.OWNER)
    page = owner.get(get_go_live.handler, "/go-live")
    assert page.status == 200, page.body
    settings = get_services().settings
    assert f"{settings.storefront_url}/webhooks/stripe/{demo.token}" in page.body
    assert "payment_intent.succeeded" in page.body and "charge.dispute.closed" in page.body
    assert "Not connected" in page.body
    assert f"{settings.storefront_url}/api/accounts/{demo.token}" in page.body
    assert settings.operator_url in page.body and "Rotate the secret of" in page.body

    status, location, body = save(owner, **KEYS)
    assert status == 303, body
    assert location.startswith("/go-live?done=") and "test+mode" in location
    page = owner.get(get_go_live.handler, "/go-live")
    assert "test mode" in page.body and TEST_PUBLISHABLE_KEY in page.body
    assert TEST_SECRET_KEY not in page.body and TEST_WEBHOOK_SECRET not in page.body

    # The first checkout after the setup: the Payment Element, paid, the player back: recorded.
    ident = new_basket(invoke, demo)
    intent = page_intent(invoke, ident)
    assert pay_in_page(stripe_api, intent) == "succeeded"
    back = invoke(
        get_checkout_return.handler, "GET", f"/checkout/{ident}/return", query={"payment_intent": intent}
    )
    assert back.status == 303 and back.headers["location"].endswith(f"/checkout/{ident}/receipt"), back.body
    assert len(payments(invoke, demo)) == 1


def test_a_key_stripe_refuses_is_not_saved_and_the_right_fields_are_kept_sealed(
    stripe_reachable: DemoStore,
) -> None:
    owner = signed_in(Role.OWNER)
    revoked = "sk_test_revokedkey00000001"
    status, _, body = save(owner, **{**KEYS, "secret_key": revoked})
    assert status == 422 and "Stripe refused this key" in body
    assert StoreRepository(stripe_reachable.table).store(1).gateways.stripe is None
    # What was right is kept: the publishable key shown, the webhook secret carried sealed (never
    # in the clear), the refused key empty.
    assert TEST_PUBLISHABLE_KEY in body and TEST_WEBHOOK_SECRET not in body and revoked not in body
    carried = dict(re.findall(r'name="(\w+_carried)" value="([^"]+)"', body))
    assert set(carried) == {"webhook_secret_carried"}
    # The owner retypes only the secret key: saved with the carried webhook secret.
    answer = owner.post(
        save_gateways.handler,
        "/settings/gateways",
        {
            "revision": revision_of(body),
            "publishable_key": TEST_PUBLISHABLE_KEY,
            "secret_key": TEST_SECRET_KEY,
            **carried,
        },
    )
    assert answer.status == 303, answer.body
    stored = StoreRepository(stripe_reachable.table).store(1).gateways.stripe
    assert stored is not None
    box = get_services().secrets
    assert open_sealed(box, stored.webhook_secret_sealed) == TEST_WEBHOOK_SECRET
    assert open_sealed(box, stored.secret_key_sealed) == TEST_SECRET_KEY


def test_a_typo_in_one_secret_never_empties_the_others(stripe_reachable: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    assert save(owner, **KEYS)[0] == 303
    before = StoreRepository(stripe_reachable.table).store(1).gateways.stripe
    # A malformed webhook secret: refused by the catalog's check, Stripe not asked, nothing changed.
    status, _, body = save(owner, publishable_key=TEST_PUBLISHABLE_KEY, webhook_secret="whsec_no")
    assert status == 422 and "webhook_secret" in body
    assert StoreRepository(stripe_reachable.table).store(1).gateways.stripe == before
    # Blank secrets keep the stored ones; a new webhook secret alone replaces only it.
    status, location, _ = save(
        owner, publishable_key=TEST_PUBLISHABLE_KEY, webhook_secret="whsec_replaced0001"
    )
    assert status == 303 and location == "/go-live?done=Saved"
    after = StoreRepository(stripe_reachable.table).store(1).gateways.stripe
    assert after is not None and before is not None
    assert after.secret_key_sealed == before.secret_key_sealed
    assert open_sealed(get_services().secrets, after.webhook_secret_sealed) == "whsec_replaced0001"


def test_a_live_account_that_cannot_take_charges_is_refused(stripe_reachable: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    status, _, body = save(
        owner,
        publishable_key="pk_live_abcdefgh12",
        secret_key="sk_live_inactiveaccount01",
        webhook_secret="whsec_abcdefgh12",
    )
    assert status == 422 and "cannot take charges yet" in body
    assert StoreRepository(stripe_reachable.table).store(1).gateways.stripe is None


def test_a_reader_sees_the_page_without_forms(stripe_reachable: DemoStore) -> None:
    reader = signed_in(Role.READONLY)
    page = reader.get(get_go_live.handler, "/go-live")
    assert page.status == 200 and "Check with Stripe and save" not in page.body
    assert "Rotate the secret of" not in page.body
    refused = reader.post(save_gateways.handler, "/settings/gateways", {"revision": "0", **KEYS})
    assert refused.status == 403


def test_the_keys_alone_register_the_webhook_endpoint_in_stripe_and_its_events_are_accepted(
    stripe_reachable: DemoStore, invoke: Invoke, stripe_api: str
) -> None:
    import httpx

    from functions.storefront import stripe_webhook
    from tests.integration.stripe.test_stripe_webhook import event, sign
    from webstore.checkout.stripe_setup import STRIPE_EVENTS

    def endpoints() -> list[dict[str, object]]:
        answer = httpx.get(
            f"{stripe_api}/v1/webhook_endpoints", headers={"Authorization": f"Bearer {TEST_SECRET_KEY}"}
        )
        found: list[dict[str, object]] = answer.json()["data"]
        return found

    before = len(endpoints())
    owner = signed_in(Role.OWNER)
    status, location, body = save(owner, publishable_key=TEST_PUBLISHABLE_KEY, secret_key=TEST_SECRET_KEY)
    assert status == 303, body
    assert "registered+in+Stripe" in location
    created = endpoints()[before:]
    url = f"{get_services().settings.storefront_url}/webhooks/stripe/{stripe_reachable.token}"
    assert [(e["url"], e["enabled_events"]) for e in created] == [(url, list(STRIPE_EVENTS))]
    stored = StoreRepository(stripe_reachable.table).store(1).gateways.stripe
    assert stored is not None
    secret = open_sealed(get_services().secrets, stored.webhook_secret_sealed)
    assert secret.startswith("whsec_")
    # Stripe's deliveries, signed with the endpoint's secret, are accepted; others are not.
    payload = event("customer.created", {"id": "cus_1", "object": "customer"})
    path = f"/webhooks/stripe/{stripe_reachable.token}"
    for signing, expected in ((secret, 200), (TEST_WEBHOOK_SECRET, 400)):
        answer = invoke(
            stripe_webhook.handler,
            "POST",
            path,
            raw_body=payload,
            headers={"content-type": "application/json", "stripe-signature": sign(payload, signing)},
        )
        assert answer.status == expected, answer.body
    # The page shows when Stripe's webhook last reached the store.
    shown = owner.get(get_go_live.handler, "/go-live").body
    assert 'id="stripe-last-event">Last event received from Stripe' in shown and "customer.created" in shown
    # Saving the keys again keeps the endpoint's secret and registers nothing more.
    assert save(owner, publishable_key=TEST_PUBLISHABLE_KEY, secret_key=TEST_SECRET_KEY)[0] == 303
    assert len(endpoints()) == before + 1


def test_the_page_says_where_the_shop_is_and_whether_mail_goes_out(
    stripe_reachable: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    from webstore.admin.golive_pages import custom_domain

    owner = signed_in(Role.OWNER)
    page = owner.get(get_go_live.handler, "/go-live").body
    assert 'id="mail-domain">E-mail to players is off on this stage' in page
    settings = get_services().settings
    monkeypatch.setattr(settings, "shop_url", "https://shop.example.com")
    page = owner.get(get_go_live.handler, "/go-live").body
    assert 'id="shop-domain">On your own domain.' in page and "https://shop.example.com" in page
    assert not custom_domain("https://abc123.execute-api.eu-west-1.amazonaws.com")
    assert not custom_domain("http://127.0.0.1:8083") and not custom_domain("")


MAIL_DOMAIN = "mail.example.com"


@pytest.fixture
def ses_mail(stripe_reachable: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[PanelClient]:
    """The stage sends through SES (moto's) from store@mail.example.com; an owner signed in."""
    monkeypatch.setenv("WEBSTORE_MAIL_TRANSPORT", "ses")
    monkeypatch.setenv("WEBSTORE_MAIL_FROM", f"store@{MAIL_DOMAIN}")
    services_module.reset()
    yield signed_in(Role.OWNER)
    services_module.reset()


def _mail_row(owner: PanelClient) -> str:
    """The e-mail row's class and words (`ok`, `warn`, `todo` or `` for neutral)."""
    page = owner.get(get_go_live.handler, "/go-live")
    assert page.status == 200, page.body
    found = re.search(r'<p class="status ?(\w*)" id="mail-domain">(.*?)</p>', page.body, re.S)
    assert found, page.body
    return f"{found.group(1)} {re.sub(r'<[^>]+>', '', found.group(2))}"


def test_the_mail_row_asks_ses_whether_the_domain_is_verified_and_signs(ses_mail: PanelClient) -> None:
    sesv2 = boto3.client("sesv2", region_name=get_services().settings.region)
    # No identity for the domain in this account and region: red, saying so.
    row = _mail_row(ses_mail)
    assert row.startswith("todo E-mail to players cannot be sent from store@mail.example.com."), row
    assert "the identity does not exist in this account and region" in row
    # Created, its DNS records not seen yet: amber.
    sesv2.create_email_identity(EmailIdentity=MAIL_DOMAIN)
    row = _mail_row(ses_mail)
    assert row.startswith("warn ") and f"{MAIL_DOMAIN}: pending: DNS records not seen yet" in row, row
    # Easy DKIM's tokens, as SES returns them while it waits (moto keeps none): the CNAMEs to add.
    identities = ses_backends[DEFAULT_ACCOUNT_ID]["us-east-1"].email_identities
    identities[MAIL_DOMAIN].dkim_attributes.update(Status="PENDING", Tokens=["tok1", "tok2", "tok3"])
    page = ses_mail.get(get_go_live.handler, "/go-live").body
    table = page[page.index('id="mail-dkim"') :]
    for token in ("tok1", "tok2", "tok3"):
        row_html = (
            f"<code>{token}._domainkey.{MAIL_DOMAIN}</code></td><td><code>{token}.dkim.amazonses.com</code>"
        )
        assert row_html in table, table[:600]
    assert "publish these DKIM records in the domain's DNS" in page
    # Easy DKIM signing and SES verified it (what SES does once it sees the CNAMEs): green.
    sesv2.delete_email_identity(EmailIdentity=MAIL_DOMAIN)
    sesv2.create_email_identity(
        EmailIdentity=MAIL_DOMAIN, DkimSigningAttributes={"NextSigningKeyLength": "RSA_2048_BIT"}
    )
    identities[MAIL_DOMAIN].verified_for_sending_status = True
    assert (
        _mail_row(ses_mail)
        == f"ok E-mail to players is sent from store@{MAIL_DOMAIN}. {MAIL_DOMAIN}: verified, DKIM signing."
    )
    # The SES call is not DynamoDB: the page stays one DynamoDB round trip.
    counter = CallCounter()
    counter.count_parallel_reads()
    client = get_services().table.client
    counter.hook(client)
    try:
        assert _mail_row(ses_mail).startswith("ok ")
    finally:
        counter.unhook(client)
        counter.stop_counting_parallel_reads()
    assert counter.rounds == 1, counter.calls


def test_the_mail_row_says_it_could_not_check_when_ses_cannot_be_asked(
    ses_mail: PanelClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    # SES out of reach (a closed port on loopback): the page answers, the row is neutral.
    monkeypatch.setenv("AWS_ENDPOINT_URL_SESV2", "http://127.0.0.1:9")
    services_module.reset()
    row = _mail_row(ses_mail)
    assert row.startswith(" E-mail to players is sent from store@mail.example.com; could not check"), row
    assert "with SES: EndpointConnectionError: Could not connect to the endpoint URL" in row, row


def _status(body: str, row: str) -> str:
    """The class and text of a row's status line (`ok`, `warn` or `todo`, then its words)."""
    found = re.search(rf'<p class="status (\w+)" id="{row}-status">(.*?)</p>', body, re.S)
    assert found, body
    return f"{found.group(1)} {found.group(2)}"


def test_the_legal_row_is_red_until_the_seller_and_the_policies_are_set_on_settings(
    stripe_reachable: DemoStore,
) -> None:
    from functions.admin import get_store_settings, save_store_settings

    owner = signed_in(Role.OWNER)
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    assert row.startswith("todo Missing: legal name, address, country, tax number"), row
    assert 'href="/settings"' in row
    settings = owner.get(get_store_settings.handler, "/settings")
    store = StoreRepository(stripe_reachable.table).store(1)
    fields = {
        "revision": revision_of(settings.body),
        "name": store.name,
        "currency": store.currency,
        "seller.legal_name": "Demo Craft SAS",
        "seller.address": "1 rue de la Paix\n75002 Paris",
        "seller.country": "fr",
        "seller.tax_number": "FR12345678901",
        "terms_url": "https://demo.example.com/terms",
    }
    assert owner.post(save_store_settings.handler, "/settings", fields).status == 303
    # The demo store's refund policy is a shop page (`refunds`): green, saying the checkout lacks it.
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    assert row.startswith("ok Set: invoices name Demo Craft SAS"), row
    assert "the refund policy is a page of your shop" in row and "/page/refunds" in row
    settings = owner.get(get_store_settings.handler, "/settings")
    fields.update(revision=revision_of(settings.body), refund_policy_url="https://demo.example.com/refunds")
    assert owner.post(save_store_settings.handler, "/settings", fields).status == 303
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    assert row.startswith("ok Set: invoices name Demo Craft SAS (FR, tax number"), row
    assert 'href="https://demo.example.com/refunds"' in row and "the checkout links to both" in row


def test_the_legal_row_reads_the_shops_terms_and_refunds_pages_too(stripe_reachable: DemoStore) -> None:
    """A store whose policies are pages of its shop (slug `terms`, `refunds`, made or edited on
    the panel's catalog page form) turns green without the URLs; a disabled page, or a page of
    another slug, does not count."""
    from functions.admin import (
        get_catalog_element,
        get_store_settings,
        save_catalog_element,
        save_store_settings,
    )

    owner = signed_in(Role.OWNER)
    store = StoreRepository(stripe_reachable.table).store(1)
    settings = owner.get(get_store_settings.handler, "/settings")
    seller = {
        "revision": revision_of(settings.body),
        "name": store.name,
        "currency": store.currency,
        "seller.legal_name": "Demo Craft SAS",
        "seller.address": "1 rue de la Paix",
        "seller.country": "FR",
        "seller.tax_number": "FR12345678901",
    }
    assert owner.post(save_store_settings.handler, "/settings", seller).status == 303
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    # The demo store has a `refunds` page, no terms URL and no terms page.
    assert row.startswith("todo Missing: terms (URL or shop page)."), row
    assert 'href="/catalog/pages"' in row

    def add_page(slug: str, **extra: str) -> None:
        form = owner.get(get_catalog_element.handler, "/catalog/pages/new")
        fields = {"revision": revision_of(form.body), "title": slug.title(), "slug": slug}
        saved = owner.post(save_catalog_element.handler, "/catalog/pages/new", {**fields, **extra})
        assert saved.status == 303, saved.body

    add_page("terms", disabled="on", content="<p>Draft</p>")  # players cannot read it: no
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    assert row.startswith("todo Missing: terms (URL or shop page)."), row
    add_page("terms-of-sale", content="<p>Terms</p>")  # another slug: a page, not the terms
    assert _status(owner.get(get_go_live.handler, "/go-live").body, "legal").startswith("todo")
    form = owner.get(get_catalog_element.handler, "/catalog/pages/3")
    saved = owner.post(
        save_catalog_element.handler,
        "/catalog/pages/3",
        {"revision": revision_of(form.body), "title": "Terms", "slug": "terms", "content": "<p>Terms</p>"},
    )
    assert saved.status == 303, saved.body
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "legal")
    shop = get_services().settings.shop_url.rstrip("/")
    assert row.startswith("ok Set: invoices name Demo Craft SAS"), row
    assert f'href="{shop}/page/terms"' in row and f'href="{shop}/page/refunds"' in row
    assert "both are a page of your shop" in row and "the checkout links only" in row


def test_the_tax_row_warns_without_tax_and_needs_the_stripe_keys_for_stripe_tax(
    stripe_reachable: DemoStore,
) -> None:
    from functions.admin import get_tax_settings, save_tax_settings

    owner = signed_in(Role.OWNER)

    def set_tax(**fields: str) -> None:
        page = owner.get(get_tax_settings.handler, "/settings/tax")
        blank = {"rate": "0", "origin_country": "", "rates": "", "reverse_charge": "on"}
        fields = {"revision": revision_of(page.body), **blank, **fields}
        answer = owner.post(save_tax_settings.handler, "/settings/tax", fields)
        assert answer.status == 303, answer.body

    # The demo store: exclusive at a flat 0%, which charges nothing either.
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "tax")
    assert row.startswith("warn No tax is charged (the mode is exclusive, but every rate is 0%)"), row
    set_tax(mode="none", calculation="flat")
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "tax")
    assert row.startswith("warn No tax is charged: prices") and "you pay it yourself" in row
    assert 'href="/settings/tax"' in row and "docs/tax.md" in row

    set_tax(mode="exclusive", calculation="flat", rate="20")
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "tax")
    assert row.startswith("ok Tax is charged: prices are <strong>before tax</strong>"), row
    assert "one rate of 20" in row

    set_tax(mode="inclusive", calculation="stripe_tax", origin_country="FR")
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "tax")
    assert row.startswith("todo Stripe Tax decides the tax, but the store has no Stripe keys"), row

    assert save(owner, **KEYS)[0] == 303
    row = _status(owner.get(get_go_live.handler, "/go-live").body, "tax")
    assert row.startswith("ok Tax is charged: prices are <strong>tax included</strong>"), row
    assert "Stripe Tax" in row and "the Stripe keys are set" in row


def test_a_store_without_packages_gets_start_here_steps_until_its_first_package(
    stripe_reachable: DemoStore,
) -> None:
    from datetime import UTC, datetime

    from webstore.admin.store_setup import create_store

    # The demo store has packages: no "Start here".
    assert 'id="start-here"' not in signed_in(Role.OWNER).get(get_go_live.handler, "/go-live").body
    services = get_services()
    new = create_store(
        services,
        store_id=7,
        name="Fresh Server",
        currency="EUR",
        owner_email="o@example.com",
        now=datetime.now(UTC),
    )
    owner = signed_in(Role.OWNER, account_id=new.account_id)
    page = owner.get(get_go_live.handler, "/go-live")
    assert page.status == 200, page.body
    steps = re.search(r'<section id="start-here".*?</section>', page.body, re.S)
    assert steps, page.body
    assert 'class="status ok" id="start-store">Name and currency: Fresh Server, EUR' in steps.group(0)
    assert 'class="status todo" id="start-stripe">' in steps.group(0) and 'href="#stripe"' in steps.group(0)
    assert 'class="status todo" id="start-package">' in steps.group(0) and 'href="/catalog"' in steps.group(0)
    # A first category and package through the panel's catalog forms: the steps are gone.
    from functions.admin import get_catalog_element, save_catalog_element
    from tests.integration.admin.test_catalog_handlers import new_package

    form = owner.get(get_catalog_element.handler, "/catalog/categories/new")
    created = owner.post(
        save_catalog_element.handler,
        "/catalog/categories/new",
        {"revision": revision_of(form.body), "name": "Ranks", "slug": "ranks", "order": "1"},
    )
    assert created.status == 303, created.body
    category = created.headers["location"].split("/")[3].split("?")[0]
    form = owner.get(get_catalog_element.handler, "/catalog/packages/new")
    fields = new_package(owner, revision_of(form.body), category_id=category)
    saved = owner.post(save_catalog_element.handler, "/catalog/packages/new", fields)
    assert saved.status == 303, saved.body
    assert 'id="start-here"' not in owner.get(get_go_live.handler, "/go-live").body
