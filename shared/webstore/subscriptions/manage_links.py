"""The manage page's link and its form tokens: signed, so nothing secret is stored.

A manage token is `<account base36>.<reference>.<MAC>`, the MAC an HMAC-SHA256 (43 base64url
characters, 256 bits) of account and reference under a key derived from the stage key
(`SecretBox.mac`, purpose `manage-subscription`). It is recomputed and compared in constant
time on every use: a username, a reference or a transaction id alone opens nothing, and a table
read (backup, export) reveals no token. It is handed out where the player already is: the
receipt page and the payment / recurring-payment webhooks (added at dispatch, so it never sits
in the event bus).

A form token guards the page's POST (cross-site request forgery, a form replayed from an old
tab): `<issued unix seconds>.<MAC of account, reference, action and that instant>`, accepted for
`FORM_TOKEN_SECONDS` after it was issued and only for the action it was issued for.
"""

from __future__ import annotations

import base64
import hmac
import re
from dataclasses import replace
from datetime import datetime

from webstore import keys
from webstore.errors import Forbidden, NotFound
from webstore.events import DomainEvent
from webstore.secret_box import SecretBox

LINK_PURPOSE = "manage-subscription"
FORM_PURPOSE = "manage-subscription-form"
FORM_TOKEN_SECONDS = 3600
PAGE_PATH = "/subscriptions"

_REFERENCE = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
_TOKEN = re.compile(r"^([0-9a-z]{1,7})\.([A-Za-z0-9_-]{1,64})\.([A-Za-z0-9_-]{43})$")
_FORM_TOKEN = re.compile(r"^([0-9]{1,12})\.([A-Za-z0-9_-]{43})$")
NOT_FOUND = "This subscription link is not valid"


def _encode(digest: bytes) -> str:
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def _link_mac(box: SecretBox, account_id: int, reference: str) -> str:
    return _encode(box.mac(LINK_PURPOSE, f"{account_id}:{reference}"))


def manage_token(box: SecretBox, account_id: int, reference: str) -> str:
    if not _REFERENCE.match(reference):
        raise ValueError(f"not a recurring payment reference: {reference!r}")
    return f"{keys.base36(account_id)}.{reference}.{_link_mac(box, account_id, reference)}"


def manage_url(storefront_url: str, box: SecretBox, account_id: int, reference: str) -> str:
    return f"{storefront_url}{PAGE_PATH}/{manage_token(box, account_id, reference)}"


def open_token(box: SecretBox, token: str) -> tuple[int, str]:
    """(account id, reference) of a genuine token; NotFound for anything else, read nothing."""
    match = _TOKEN.match(token or "")
    if not match:
        raise NotFound(NOT_FOUND)
    account_id = int(match.group(1), 36)
    reference = match.group(2)
    if not 1 <= account_id <= keys.INT32_MAX:
        raise NotFound(NOT_FOUND)
    if not hmac.compare_digest(_link_mac(box, account_id, reference), match.group(3)):
        raise NotFound(NOT_FOUND)
    return account_id, reference


def _form_mac(box: SecretBox, account_id: int, reference: str, action: str, issued: int) -> str:
    return _encode(box.mac(FORM_PURPOSE, f"{account_id}:{reference}:{action}:{issued}"))


def form_token(box: SecretBox, account_id: int, reference: str, action: str, now: datetime) -> str:
    issued = int(now.timestamp())
    return f"{issued}.{_form_mac(box, account_id, reference, action, issued)}"


def check_form_token(
    box: SecretBox, account_id: int, reference: str, action: str, token: str, now: datetime
) -> None:
    """Forbidden (403) unless `token` was issued by this page for `action`, recently."""
    match = _FORM_TOKEN.match(token or "")
    if not match:
        raise Forbidden("The form has expired; open the page again")
    issued = int(match.group(1))
    age = now.timestamp() - issued
    expected = _form_mac(box, account_id, reference, action, issued)
    if not hmac.compare_digest(expected, match.group(2)) or not -60 <= age <= FORM_TOKEN_SECONDS:
        raise Forbidden("The form has expired; open the page again")


def with_manage_url(event: DomainEvent, storefront_url: str, box: SecretBox) -> DomainEvent:
    """The event as webhooks send it: a payment of a subscription (`recurring_payment_reference`)
    and a recurring payment (`reference`) gain `manage_url`, the player's manage page (our
    extension; receivers that do not know it ignore it). Added when the webhook is signed, by
    the one function that holds the key, so the token never sits in the event bus."""
    subject = event.subject
    if event.type.startswith("recurring-payment."):
        reference = subject.get("reference")
    elif event.type.startswith("payment."):
        reference = subject.get("recurring_payment_reference")
    else:
        return event
    if not isinstance(reference, str) or not _REFERENCE.match(reference) or "manage_url" in subject:
        return event
    url = manage_url(storefront_url, box, event.account_id, reference)
    return replace(event, subject={**subject, "manage_url": url})
