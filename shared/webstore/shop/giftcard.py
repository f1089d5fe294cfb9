"""The gift-card balance form (the sidebar's `giftcard_balance` module, docs/shop.md): a player
enters a card's code and the shop answers its remaining balance and expiry.

- An unknown, void or expired card gets the same answer (`REFUSED`): the form tells whether a
  code is good now and nothing more.
- Every look-up is counted per visitor address (`failure_guard.GIFTCARD_BALANCE`, the guard of
  the server secret and the staff log-in): past `secret_failures_allowed` in
  `secret_failure_window_seconds` the form answers 429 until the window ends. Guessing codes
  through it is as slow as guessing a server secret.
- The card is one GetItem of the item baskets read (`GiftCardRepository.by_code`), issued
  beside the page's own read.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal
from typing import Any

from webstore.catalog import GiftCard
from webstore.errors import NotFound
from webstore.failure_guard import GIFTCARD_BALANCE
from webstore.repo import start_read
from webstore.repo.gift_cards import GiftCardRepository
from webstore.services import Services
from webstore.shop.context import Builder, money
from webstore.shop.pages import Build, ShopResult, page
from webstore.shop.reads import ShopData, Visitor, read_shop, shop_account

TITLE = "Gift card balance"
REFUSED = "No gift card with that code"
EMPTY = "Enter a gift card code"
MAX_CODE = 64  # a card number's longest (catalog.GiftCard)


def _found(services: Services, code: str, now: datetime) -> GiftCard | None:
    """The card with this code that can pay today; None for an unknown, void or expired one."""
    if len(code) > MAX_CODE:  # longer than any card: refused without a read
        return None
    try:
        card = GiftCardRepository(services.table).by_code(shop_account(services), code)
    except NotFound:
        return None
    if card.void or (card.expires_at is not None and card.expires_at <= now):
        return None
    return card


def shown(card: GiftCard) -> dict[str, Any]:
    """`giftcard` of the page: its number, remaining balance and currency, expiry ("" never)."""
    return {
        "code": card.card_number,
        "balance": money(card.balance, card.currency),
        "currency": card.currency,
        "expires": card.expires_at.date().isoformat() if card.expires_at else "",
    }


def build(code: str, card: dict[str, Any] | None, error: str = "") -> Build:
    """The page: the card (`shown`) or the refusal (`error`), the form with `code` again."""

    def built(data: ShopData, b: Builder) -> tuple[str, str, dict[str, Any]]:
        del data, b
        return "giftcard.html", TITLE, {"giftcard": card, "code": code, "error": error}

    return built


# The panel's preview of `giftcard.html` (webstore.shop.theme.samples).
SAMPLE: dict[str, Any] = {
    "code": "GIFT-0000-0000-0000",
    "balance": Decimal("10.00"),
    "currency": "USD",
    "expires": "",
}


def balance(services: Services, visitor: Visitor, code: str, now: datetime) -> ShopResult:
    """The balance page of `code`: 200 with the card, 404 with `REFUSED`, 422 without a code;
    Throttled (429) past the guard's allowance. The card is read beside the page's own read
    (one round trip after the guard's count)."""
    code = code.strip()[: MAX_CODE + 1]
    card, status, error, data = None, 422, EMPTY, None
    if code:
        moment = int(now.timestamp())
        GIFTCARD_BALANCE.check_remembered(services, visitor.ip, moment)
        GIFTCARD_BALANCE.count_failure(services, visitor.ip, moment)
        found = start_read(_found, services, code, now)
        data = read_shop(services, visitor)
        card = found.result()
        status, error = (200, "") if card is not None else (404, REFUSED)
    result = page(services, visitor, build(code, shown(card) if card else None, error), data)
    if result.status != 200 or status == 200:  # the maintenance page, or the balance
        return result
    return ShopResult(status, result.html, csp=result.csp)
