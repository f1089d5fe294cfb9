"""A message's subject, HTML and plain text, from templates/mail/ in the store's brand.

Every value a player or an owner typed (names, usernames, package names) reaches the HTML
escaped (the toolkit's autoescape); the plain-text part is not HTML and is not escaped. Mail
clients ignore `<style>` blocks and CSS variables, so the layout writes its few styles inline,
with the store's primary colour (a checked `#rrggbb`) as the accent.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from typing import Any

from aws_lambda_powertools import Logger

from webstore.catalog import StoreProfile
from webstore.html import long_date, render
from webstore.html.owner import OwnerTemplateError
from webstore.html.player import Brand, Words, speaking, translated
from webstore.mail import Attachment
from webstore.mail.messages import MessageKind, Receipt, receipt
from webstore.mail.overrides import context_of, render_override
from webstore.money import display
from webstore.recurring import RecurringPayment
from webstore.repo.mail import TemplateOverride
from webstore.storefront.theme import brand

logger = Logger(child=True)

DEFAULT_ACCENT = "#1f6feb"

# The subject lines, in the message's language like its body (`translated`; the texts are in the
# shop's catalogs: webstore.shop.i18n.MAIL_TEXTS).
SUBJECTS = {
    MessageKind.RECEIPT: "Your receipt from %(store)s",
    MessageKind.RENEWAL_RECEIPT: "Your %(store)s subscription has renewed",
    MessageKind.RENEWAL_FAILED: "Action needed: your %(store)s subscription payment did not go through",
    MessageKind.FINAL_NOTICE: "Final notice: your %(store)s subscription is about to end",
    MessageKind.CANCELLED: "Your %(store)s subscription is cancelled",
    MessageKind.EXPIRED: "Your %(store)s subscription has ended",
    MessageKind.REFUND: "Your refund from %(store)s",
    MessageKind.RENEWAL_NOTICE: "Your %(store)s subscription renews soon",
    MessageKind.GIFT_CARD: "You received a %(store)s gift card",
}


@dataclass(frozen=True)
class Subscription:
    """What a subscription message says about it."""

    names: list[str]
    amount: Decimal  # one renewal's price (a notice: what the renewal charges, tax included)
    currency: str
    next_payment_at: datetime | None  # the period's end: the next renewal, or when access ends
    retry_at: datetime | None  # a declined renewal's next try
    action_url: str | None  # where a declined renewal is authenticated or paid
    manage_url: str | None


@dataclass(frozen=True)
class Documents:
    """The payment's invoice (and a refund message's credit note) as the message links them:
    (number, the hosted document's URL), webstore.invoices.documents."""

    invoice: tuple[str, str]
    credit_note: tuple[str, str] | None = None
    files: tuple[Attachment, ...] = ()  # the documents themselves, attached


@dataclass(frozen=True)
class Composed:
    subject: str
    html: str
    text: str


def subscription_of(
    subject: dict[str, Any], recurring: RecurringPayment | None, manage_url: str | None
) -> Subscription:
    """From the stored subscription when it was read (the next try's date is only there), else
    from the event. A renewal notice's amount is the charge it announces (`renewal_charge`)."""
    price = subject.get("price") or {}
    charge = subject.get("renewal_charge")
    charged = Decimal(str(charge["amount"])) if isinstance(charge, dict) and "amount" in charge else None
    names = [str(p.get("name") or "") for p in subject.get("products") or []]
    next_at = subject.get("next_payment_at")
    action = subject.get("action_url")
    if recurring is not None:
        return Subscription(
            names=[line.name for line in recurring.lines] or names,
            amount=recurring.amount if charged is None else charged,
            currency=recurring.currency,
            next_payment_at=recurring.next_payment_at,
            retry_at=recurring.retry_at,
            action_url=recurring.renewal_action.url if recurring.renewal_action else action,
            manage_url=manage_url,
        )
    return Subscription(
        names=names,
        amount=Decimal(str(price.get("amount") or 0)) if charged is None else charged,
        currency=str(price.get("currency") or ""),
        next_payment_at=datetime.fromisoformat(next_at) if isinstance(next_at, str) else None,
        retry_at=None,
        action_url=action if isinstance(action, str) else None,
        manage_url=manage_url,
    )


def gift_card_of(subject: dict[str, Any]) -> dict[str, str]:
    """What "you received a gift card" says, from its event (webstore.operator.gift_cards)."""
    expires = subject.get("expires_at")
    return {
        "code": str(subject.get("code") or ""),
        "balance": display(Decimal(str(subject.get("balance") or 0)), str(subject.get("currency") or "")),
        "expires_on": long_date(datetime.fromisoformat(expires)) if isinstance(expires, str) else "",
        "message": str(subject.get("message") or ""),
    }


def compose(
    kind: MessageKind,
    store: StoreProfile,
    event_subject: dict[str, Any],
    *,
    recurring: RecurringPayment | None = None,
    manage_url: str | None = None,
    documents: Documents | None = None,
    override: TemplateOverride | None = None,
    words: Words | None = None,
) -> Composed:
    """The message `kind` for this event of `store`'s; `documents`: the payment's invoice (and
    credit note) to link, when it has one; `override`: the owner's own template for `kind`
    (the house's is used when it fails on this event's data: logged); `words`: the owner's
    translation files (webstore.repo.shop_theme.ShopWords), over the catalogs."""
    look = brand(store)
    payment: Receipt | None = None
    subscription: Subscription | None = None
    card: dict[str, str] | None = None
    if kind is MessageKind.GIFT_CARD:
        with speaking(look.lang, words):  # its date in the store's language
            card = gift_card_of(event_subject)
    elif kind in (MessageKind.RECEIPT, MessageKind.REFUND):
        payment = receipt(event_subject)
    elif kind is MessageKind.RENEWAL_RECEIPT:
        payment = receipt(event_subject.get("last_payment") or {})
        subscription = subscription_of(event_subject, recurring, manage_url)
    else:
        subscription = subscription_of(event_subject, recurring, manage_url)
    context = {
        "brand": look,
        "store": store,
        "accent": store.primary_color or DEFAULT_ACCENT,
        "kind": kind.value,
        "payment": payment,
        "subscription": subscription,
        "manage_url": manage_url,
        "documents": documents,
        "gift_card": card,
    }
    if override is not None:
        data = context_of(
            kind,
            store,
            payment=payment,
            subscription=subscription,
            manage_url=manage_url,
            invoice=documents.invoice if documents else None,
            credit_note=documents.credit_note if documents else None,
            gift_card=card,
        )
        frame = {"brand": look, "store": store, "accent": context["accent"]}
        try:
            with speaking(look.lang, words):  # the owner's template as written; the frame translated
                owned = render_override(kind, override, data, frame=frame)
            return Composed(subject=owned.subject, html=owned.html, text=owned.text)
        except OwnerTemplateError as error:
            logger.warning(
                "owner mail template failed; the house's sent", extra={"kind": kind, "error": str(error)}
            )
    return in_language(look, f"mail/{kind.value}", SUBJECTS[kind], context, words)


def in_language(
    look: Brand, template: str, subject: str, context: dict[str, Any], words: Words | None = None
) -> Composed:
    """The house's message from `template` (.html and .txt), its subject and texts (`"…"|trans`)
    in the brand's language: the store's (an e-mail is sent from an event, with no visitor),
    the owner's `words` over the catalogs'."""
    with speaking(look.lang, words):
        title = translated(subject, store=look.name)
        return Composed(
            subject=title,
            html=render(f"{template}.html", title=title, **context),
            text=render(f"{template}.txt", title=title, **context),
        )
