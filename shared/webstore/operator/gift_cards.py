"""Gift cards from the operator interface: list, get, create, top up, void (`/gift-cards…`).

Cards live where the storefront reads them (by number, with the balance checkout debits), so
a top-up or a void here is what the next basket and the next checkout see.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from decimal import Decimal

from webstore import keys
from webstore.catalog import GiftCard
from webstore.errors import Invalid, NotFound
from webstore.event_types import GIFT_CARD_DELIVERY
from webstore.events import DomainEvent
from webstore.operator import schemas
from webstore.operator.client_times import parse_client_datetime
from webstore.payments.events import event_id
from webstore.repo import Transaction, start_read
from webstore.repo.gift_cards import GiftCardRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.inputs import check_email

# A new card's message (said in its e-mail): the operator interface's `message` allows as much.
MAX_MESSAGE = 1000


def card_id(ref: str) -> int:
    if not (ref.isascii() and ref.isdigit()) or not 1 <= int(ref) <= keys.INT32_MAX:
        raise NotFound("Gift card not found")
    return int(ref)


def parse_expiry(value: str, now: datetime) -> datetime:
    """`yyyy-mm-dd hh:mm:ss` (the docs) or ISO 8601 as Newtonsoft writes it; in the future."""
    parsed = parse_client_datetime(value)
    if parsed is None:
        raise Invalid("expires_at must be a date and time, yyyy-mm-dd hh:mm:ss", field="expires_at")
    if parsed <= now:
        raise Invalid("expires_at must be in the future", field="expires_at")
    return parsed


def _amount(value: Decimal) -> str:
    return f"{value:.2f}"


def gift_card_view(card: GiftCard) -> schemas.GiftCardView:
    return schemas.GiftCardView(
        id=card.id,
        code=card.card_number,
        balance=schemas.GiftCardBalanceView(
            starting=_amount(card.starting_balance), remaining=_amount(card.balance), currency=card.currency
        ),
        note=card.note,
        void=card.void,
        created_at=card.created_at.isoformat(),
        expires_at=card.expires_at.isoformat() if card.expires_at else None,
    )


def list_gift_cards(services: Services, account_id: int) -> list[schemas.GiftCardView]:
    return [gift_card_view(c) for c in GiftCardRepository(services.table).all(account_id)]


def get_gift_card(services: Services, account_id: int, ref: str) -> schemas.GiftCardView:
    return gift_card_view(GiftCardRepository(services.table).by_id(account_id, card_id(ref)))


def lookup_gift_card(services: Services, account_id: int, code: str) -> schemas.GiftCardView:
    """By the card's number (`GET /gift-cards/lookup/{code}`, in the plugin docs)."""
    if not code or len(code) > 64:
        raise NotFound("Gift card not found")
    return gift_card_view(GiftCardRepository(services.table).by_code(account_id, code))


def create_gift_card(
    services: Services, account_id: int, body: schemas.GiftCardCreate
) -> schemas.GiftCardView:
    """A new card in the store's currency with a random 16-character number, its id taken in the
    same transaction (the id sequence is read beside the store); given an `email`, the card's
    delivery event in that transaction too (the mail consumer sends it once)."""
    now = services.now()
    expires_at = parse_expiry(body.expires_at, now) if body.expires_at else None
    recipient = delivery_recipient(body.email, body.message)
    sequences = SequenceRepository(services.table)
    ids_read = start_read(sequences.read, account_id)
    store = StoreRepository(services.table).store(account_id)
    cards = GiftCardRepository(services.table)

    def build(ids: IdAllocation) -> tuple[Transaction, GiftCard]:
        card = GiftCard(
            id=ids.take("giftcard")[0],
            card_number=secrets.token_hex(8).upper(),
            balance=body.amount,
            starting_balance=body.amount,
            currency=store.currency,
            note=body.note,
            expires_at=expires_at,
            created_at=now,
        )
        tx = services.transaction()
        cards.add_new(tx, account_id, card)
        if recipient is not None:
            OutboxRepository.add(tx, delivery_event(account_id, card, recipient, body.message, now))
        return tx, card

    return gift_card_view(sequences.write(account_id, build, first_read=ids_read))


def delivery_recipient(email: str, message: str) -> str | None:
    """Where a new card is e-mailed (None: nowhere, the owner hands it over); its `message` is
    said in that e-mail, so it needs the address."""
    recipient = check_email(email)
    if len(message) > MAX_MESSAGE:
        raise Invalid(f"message is longer than {MAX_MESSAGE:,} characters", field="message")
    if message and recipient is None:
        raise Invalid("message is said in the card's e-mail: give the email to send it to", field="message")
    return recipient


def delivery_event(account_id: int, card: GiftCard, email: str, message: str, now: datetime) -> DomainEvent:
    """ "You received a gift card": for no webhook endpoint (e-mail only), its id from the card,
    so the card is e-mailed once."""
    return DomainEvent(
        type=GIFT_CARD_DELIVERY,
        account_id=account_id,
        subject={
            "id": card.id,
            "code": card.card_number,
            "balance": _amount(card.balance),
            "currency": card.currency,
            "expires_at": card.expires_at.isoformat() if card.expires_at else None,
            "email": email,
            "message": message,
        },
        id=event_id(account_id, f"giftcard:{card.id}", GIFT_CARD_DELIVERY),
        date=now.isoformat(timespec="seconds"),
        endpoints=(),
    )


def top_up_gift_card(
    services: Services, account_id: int, ref: str, body: schemas.GiftCardTopUp
) -> schemas.GiftCardView:
    cards = GiftCardRepository(services.table)
    card = cards.by_id(account_id, card_id(ref))
    return gift_card_view(cards.top_up(account_id, card, body.amount))


def void_gift_card(services: Services, account_id: int, ref: str) -> schemas.GiftCardView:
    cards = GiftCardRepository(services.table)
    return gift_card_view(cards.void(account_id, cards.by_id(account_id, card_id(ref))))
