""" "Find my subscriptions": a player enters their e-mail on the store's hosted page and, when
that address paid anything at the store, receives a one-time sign-in link to a page listing its
subscriptions (each with its manage link: cancel or undo, and completing a declined renewal)
and its receipts.

- The answer to the form is the same whether or not the address matched, and the form is
  throttled per address and store (`MAX_REQUESTS` in `THROTTLE_SECONDS`, a conditional counter
  item): it cannot be used to learn who bought or to flood an inbox.
- A link is `<nonce>.<expires unix seconds>.<MAC>` under the stage key (`SecretBox.mac`, purpose
  `find-subscriptions`, over account, nonce and expiry): a tampered or expired link is refused
  before anything is read. It is good for `LINK_SECONDS` and one opening: its item
  (`repo.email_lookup`, holding the address) is claimed with a condition the first time.
"""

from __future__ import annotations

import base64
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import Any

from aws_lambda_powertools import Logger

from webstore import keys
from webstore.errors import Gone, Invalid, NotFound, Throttled
from webstore.event_types import SIGN_IN_REQUESTED
from webstore.events import DomainEvent
from webstore.html import Page, PageResult
from webstore.html.player import Brand, content_security_policy, page
from webstore.payments.events import event_id
from webstore.repo.email_lookup import EmailHistory, EmailLookupRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.store import StoreRepository
from webstore.repo.throttle import ThrottleRepository
from webstore.services import Services
from webstore.storefront.credentials import verified
from webstore.storefront.inputs import check_email
from webstore.storefront.theme import in_brand_of
from webstore.subscriptions import manage_links
from webstore.subscriptions.manage_page import day, money

TITLE = "Find my subscriptions"
LINK_PURPOSE = "find-subscriptions"
LINK_SECONDS = 30 * 60
THROTTLE_SCOPE = "find-subscriptions"
THROTTLE_SECONDS = 3600
MAX_REQUESTS = 3  # links per address, store and hour
PAGE_PATH = "/subscriptions/find"
SENT = "If that address bought anything here, a sign-in link is on its way. It works once, for 30 minutes."
LINK_REFUSED = "This sign-in link has expired or was already used. Ask for a new one."

logger = Logger(child=True)

_LINK = re.compile(r"^([A-Za-z0-9_-]{22})\.([0-9]{1,12})\.([A-Za-z0-9_-]{43})$")


@cache
def policy() -> str:
    """The form posts to the page itself."""
    return content_security_policy()


def _mac(services: Services, account_id: int, nonce: str, expires: int) -> str:
    digest = services.secrets.mac(LINK_PURPOSE, f"{account_id}:{nonce}:{expires}")
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def form_url(services: Services, public_token: str) -> str:
    return f"{services.settings.storefront_url}{PAGE_PATH}/{public_token}"


def link_url(services: Services, public_token: str, link: str) -> str:
    return f"{form_url(services, public_token)}/{link}"


def _form(brand: Brand, store_name: str, *, email: str = "", error: str = "", notice: str = "") -> Page:
    html = page(
        "hosted/find_subscriptions.html",
        brand=brand,
        title=TITLE,
        store=store_name,
        email=email,
        error=error,
        notice=notice,
    )
    return Page.with_policy(html, brand.policy())


def show_form(services: Services, public_token: str) -> PageResult:
    store, words = StoreRepository(services.table).store_and_words(keys.account_of(public_token))
    verified(store, public_token)
    return PageResult(html=_form(in_brand_of(store, words), store.name))


def request_link(services: Services, public_token: str, email: str) -> PageResult:
    """Mail a sign-in link when `email` paid at the store; the same answer either way. A bad
    address re-renders the form (422); too many requests for one address is 429."""
    store, words = StoreRepository(services.table).store_and_words(keys.account_of(public_token))
    verified(store, public_token)
    brand = in_brand_of(store, words)
    typed = email.strip()
    try:
        address = check_email(typed)
    except Invalid as error:  # the form again, naming the problem
        return PageResult(422, _form(brand, store.name, email=typed, error=str(error)))
    if address is None:
        return PageResult(422, _form(brand, store.name, error="Enter the e-mail address you paid with"))
    now = int(services.now().timestamp())
    client = f"{store.id}.{keys.email_digest(address)}"
    mark = ThrottleRepository(services.table, THROTTLE_SCOPE).record_failure(client, now, THROTTLE_SECONDS)
    if mark.blocks(now, MAX_REQUESTS):
        raise Throttled(
            "Too many sign-in links asked for this address; try again later",
            retry_after=mark.expires_at - now,
        )
    lookup = EmailLookupRepository(services.table)
    if lookup.has_payments(store.id, address):
        nonce = secrets.token_urlsafe(16)
        expires = now + LINK_SECONDS
        tx = services.transaction()
        lookup.add_sign_in(tx, store.id, nonce, address, expires)
        OutboxRepository.add(
            tx, sign_in_event(store.id, public_token, nonce, address, expires, services.now())
        )
        tx.commit()
    return PageResult(html=_form(brand, store.name, notice=SENT))


def sign_in_event(
    account_id: int, public_token: str, nonce: str, email: str, expires: int, now: datetime
) -> DomainEvent:
    """The link's mail, for the mail consumer (no webhook endpoint): the link's parts but not its
    MAC (the consumer, which holds the stage key, makes the link), so neither the outbox nor the
    mail log holds a link that opens."""
    return DomainEvent(
        type=SIGN_IN_REQUESTED,
        account_id=account_id,
        subject={"email": email, "public_token": public_token, "nonce": nonce, "expires": expires},
        id=event_id(account_id, f"sign-in:{nonce}", SIGN_IN_REQUESTED),
        date=now.isoformat(timespec="seconds"),
        endpoints=(),
    )


def sign_in_url(services: Services, account_id: int, subject: dict[str, Any]) -> str:
    """The link a sign-in event's mail carries (ValueError: not a sign-in event's subject)."""
    nonce, expires, token = subject.get("nonce"), subject.get("expires"), subject.get("public_token")
    if not isinstance(nonce, str) or not isinstance(expires, int) or not isinstance(token, str):
        raise ValueError("not a sign-in event")
    link = f"{nonce}.{expires}.{_mac(services, account_id, nonce, expires)}"
    return link_url(services, token, link)


@dataclass(frozen=True)
class SubscriptionRow:
    packages: str
    price: str
    status: str
    date: str
    manage_url: str


@dataclass(frozen=True)
class ReceiptRow:
    transaction_id: str
    date: str
    packages: str
    amount: str
    status: str


def _rows(
    services: Services, account_id: int, history: EmailHistory
) -> tuple[list[SubscriptionRow], list[ReceiptRow]]:
    base = services.settings.storefront_url
    subscriptions = [
        SubscriptionRow(
            packages=", ".join(line.name for line in r.lines),
            price=money(r.amount, r.currency),
            status=r.status.description,
            date=day(r.next_payment_at),
            manage_url=manage_links.manage_url(base, services.secrets, account_id, r.reference),
        )
        for r in history.subscriptions
    ]
    receipts = [
        ReceiptRow(
            transaction_id=p.transaction_id,
            date=day(p.created_at),
            packages=", ".join(line.name for line in p.lines),
            amount=money(p.amount, p.currency),
            status=p.status.description,
        )
        for p in history.payments
    ]
    return subscriptions, receipts


def open_link(services: Services, public_token: str, link: str) -> PageResult:
    """The address's subscriptions and receipts, the first time a genuine, unexpired link is
    opened (404 for a forged one, 410 for a used or expired one)."""
    account_id = keys.account_of(public_token)
    match = _LINK.match(link or "")
    if not match or not hmac.compare_digest(
        _mac(services, account_id, match.group(1), int(match.group(2))), match.group(3)
    ):
        raise NotFound("This sign-in link is not valid")
    nonce, expires = match.group(1), int(match.group(2))
    store, words = StoreRepository(services.table).store_and_words(account_id)
    verified(store, public_token)
    brand = in_brand_of(store, words)
    now = int(services.now().timestamp())
    if expires <= now:
        raise Gone(LINK_REFUSED)
    email = EmailLookupRepository(services.table).claim_sign_in(account_id, nonce, now)
    if email is None:
        raise Gone(LINK_REFUSED)
    subscriptions, receipts = _rows(
        services, account_id, EmailLookupRepository(services.table).history(account_id, email)
    )
    html = page(
        "hosted/my_subscriptions.html",
        brand=brand,
        title="Your subscriptions",
        store=store.name,
        email=email,
        subscriptions=subscriptions,
        receipts=receipts,
        form_url=form_url(services, public_token),
    )
    return PageResult(html=Page.with_policy(html, brand.policy()))
