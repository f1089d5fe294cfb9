"""Sending the messages one domain event becomes: the use case behind the mail consumer (SQS in
AWS, the local bus's worker locally) and the panel's "Send again".

For each message kind the event means (webstore.mail.messages) that the store has on and that
has an address to go to: claim (event, kind) with a condition (webstore.repo.mail), compose it
in the store's brand, hand it to the sender, settle the claim with the outcome. A redelivered
event finds its messages `sent` and sends nothing; a failed one is retried with the event.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from aws_lambda_powertools import Logger

from webstore.catalog import Store
from webstore.errors import NotFound
from webstore.events import DomainEvent
from webstore.html.player import Words
from webstore.invoices.documents import document_file, invoice_path
from webstore.mail import Attachment, MailNotSent, MailSender, Message, NoMail
from webstore.mail.compose import Composed, Documents, compose
from webstore.mail.messages import MessageKind, kinds_for, recipient
from webstore.mail.sign_in import compose_sign_in
from webstore.recurring import RecurringPayment
from webstore.repo import start_read
from webstore.repo.mail import ClaimState, MailRecord, MailRepository, MailSettings, Suppression
from webstore.repo.payments import PaymentRepository
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.subscriptions.find_by_email import sign_in_url
from webstore.subscriptions.manage_links import manage_url
from webstore.subscriptions.renewal_charge import expected_renewal

logger = Logger(child=True)


class Outcome(StrEnum):
    SENT = "sent"
    ALREADY_SENT = "already_sent"
    FAILED = "failed"  # the provider did not take it: retry
    BUSY = "busy"  # another worker is sending it right now: retry
    UNKNOWN = "unknown"  # a stopped sender's claim: shown in the panel, not resent
    SUPPRESSED = "suppressed"  # the address bounced or complained before: not sent, logged


RETRY_OUTCOMES = frozenset({Outcome.FAILED, Outcome.BUSY})

# The messages about one payment, which link its invoice (a refund's also its credit note).
DOCUMENT_KINDS = frozenset({MessageKind.RECEIPT, MessageKind.RENEWAL_RECEIPT, MessageKind.REFUND})


@dataclass
class MailResult:
    event_id: str
    outcomes: dict[str, Outcome] = field(default_factory=dict)  # kind → outcome

    @property
    def retry_needed(self) -> bool:
        return any(o in RETRY_OUTCOMES for o in self.outcomes.values())


class MailFailed(Exception):
    """Raised by the consumer so the event is retried; names the messages still owed."""

    def __init__(self, result: MailResult) -> None:
        owed = [k for k, o in result.outcomes.items() if o in RETRY_OUTCOMES]
        super().__init__(f"event {result.event_id}: messages {owed} not sent yet")
        self.result = result


# The messages about a renewal that could not be charged: they tell the amount it tries.
DECLINED = frozenset({MessageKind.RENEWAL_FAILED, MessageKind.FINAL_NOTICE})


@dataclass(frozen=True)
class _Context:
    store: Store
    settings: MailSettings
    recurring: RecurringPayment | None
    suppression: Suppression | None = None
    words: Words = field(default_factory=dict)  # the owner's translation files (repo.shop_theme)


class MailDispatcher:
    def __init__(self, services: Services, *, sender: MailSender | None = None) -> None:
        self.services = services
        self.repo = MailRepository(services.table)
        self.sender = sender

    def _sender(self) -> MailSender:
        return self.sender or self.services.mail_sender()

    # --- the use case ---

    def dispatch(self, event: DomainEvent) -> MailResult:
        result = MailResult(event.id)
        to = recipient(event.type, event.subject)
        if not to:  # the player gave no address: nothing to send (the checkout says so)
            return result
        if isinstance(self._sender(), NoMail):  # no transport configured (a tool's run): no mail
            return result
        try:
            store, words = StoreRepository(self.services.table).store_and_words(event.account_id)
        except NotFound:
            logger.warning("mail for an unknown store", extra={"event_id": event.id})
            return result
        kinds = kinds_for(event.type, event.subject, len(store.renewal_retry_days))
        if not kinds:
            return result
        suppression = start_read(self.repo.suppressed, event.account_id, to)
        settings = self.repo.settings(event.account_id)
        context = _Context(store, settings, self._recurring(event), suppression.result(), words)
        for kind in kinds:
            if context.settings.enabled(kind):
                result.outcomes[kind.value] = self._send(event, kind, to, context, self.services.now())
        logger.info(
            "mail for event",
            extra={"event_id": event.id, "event_type": event.type, "outcomes": dict(result.outcomes)},
        )
        return result

    def resend(self, account_id: int, event_id: str, kind: str) -> MailRecord:
        """The panel's "Send again" of a failed or unknown message (from the event it kept);
        NotFound when there is no such message or it cannot be sent again."""
        record = self.repo.record(account_id, event_id, kind)
        if record is None or not record.can_resend or record.event_subject is None:
            raise NotFound("No message to send again")
        event = DomainEvent(
            type=record.event_type,
            account_id=account_id,
            subject=json.loads(record.event_subject),
            id=record.event_id,
            date=record.event_date,
        )
        store, words = StoreRepository(self.services.table).store_and_words(account_id)
        suppression = self.repo.suppressed(account_id, record.recipient)
        context = _Context(store, self.repo.settings(account_id), self._recurring(event), suppression, words)
        self._send(event, MessageKind(kind), record.recipient, context, self.services.now(), resend=True)
        return self.repo.record(account_id, event_id, kind) or record

    # --- steps ---

    def _recurring(self, event: DomainEvent) -> RecurringPayment | None:
        """The subscription as it stands (the next try's date is only there): one GetItem."""
        reference = event.subject.get("reference") if event.type.startswith("recurring-payment.") else None
        if not isinstance(reference, str):
            return None
        return RecurringPaymentRepository(self.services.table).get(
            event.account_id, reference, consistent=False
        )

    def _documents(self, event: DomainEvent, kind: MessageKind, store: Store) -> Documents | None:
        """The invoice of the payment a receipt or refund message is about (and the refund's
        credit note: the payment's latest): one GetItem of the payment by its id. None when the
        payment has no invoice (recorded before invoices existed) or cannot be read."""
        if kind not in DOCUMENT_KINDS:
            return None
        subject = event.subject
        if kind is MessageKind.RENEWAL_RECEIPT:
            subject = subject.get("last_payment") or {}
        transaction_id = subject.get("transaction_id")
        if not isinstance(transaction_id, str):
            return None
        try:
            payment = PaymentRepository(self.services.table).by_transaction(event.account_id, transaction_id)
        except NotFound:
            return None
        base = self.services.settings.storefront_url
        path = invoice_path(payment)
        if payment.invoice is None or path is None:
            return None
        credit = None
        files = [document_file(payment, store)]
        if kind is MessageKind.REFUND and payment.refunds:
            note = payment.refunds[-1].credit_note
            credit = (note.credit_label, base + (invoice_path(payment, note.number) or ""))
            files.append(document_file(payment, store, note.number))
        attached = tuple(Attachment(name, "text/html", html.encode()) for name, html in files)
        return Documents(
            invoice=(payment.invoice.invoice_label, base + path), credit_note=credit, files=attached
        )

    def _manage_url(self, event: DomainEvent) -> str | None:
        subject = event.subject
        reference = subject.get("reference") if event.type.startswith("recurring-payment.") else None
        reference = reference or subject.get("recurring_payment_reference")
        if not isinstance(reference, str) or not reference:
            return None
        try:
            return manage_url(
                self.services.settings.storefront_url, self.services.secrets, event.account_id, reference
            )
        except ValueError:
            return None

    def _send(
        self,
        event: DomainEvent,
        kind: MessageKind,
        to: str,
        context: _Context,
        now: datetime,
        *,
        resend: bool = False,
    ) -> Outcome:
        account_id = event.account_id
        claim = self.repo.claim(
            account_id,
            event.id,
            kind.value,
            now,
            event_type=event.type,
            event_date=event.date,
            event_subject=event.subject,
            recipient=to,
            resend=resend,
        )
        if claim.state is ClaimState.SENT:
            return Outcome.ALREADY_SENT
        if claim.state is ClaimState.BUSY:
            return Outcome.BUSY
        if claim.state is ClaimState.UNKNOWN:
            return Outcome.UNKNOWN
        if context.suppression is not None:  # bounced or complained before: nothing more to it
            why = f"Not sent: the address {context.suppression.reason} on {context.suppression.at:%Y-%m-%d}"
            self.repo.mark_suppressed(account_id, event.id, kind.value, claim.token, why)
            return Outcome.SUPPRESSED
        try:
            message = self._message(event, kind, to, context)
            provider_id = self._sender().send(message)
        except MailNotSent as refusal:
            logger.warning(
                "mail not sent", extra={"event_id": event.id, "kind": kind.value, "error": str(refusal)}
            )
            self.repo.mark_failed(account_id, event.id, kind.value, claim.token, str(refusal))
            return Outcome.FAILED
        except Exception as error:  # a template or data problem: recorded, retried, logged in full
            logger.exception("mail not composed", extra={"event_id": event.id, "kind": kind.value})
            self.repo.mark_failed(
                account_id, event.id, kind.value, claim.token, f"{type(error).__name__}: {error}"
            )
            return Outcome.FAILED
        self.repo.mark_sent(
            account_id, event.id, kind.value, claim.token, self.services.now(), provider_id, message.subject
        )
        return Outcome.SENT

    def _message(self, event: DomainEvent, kind: MessageKind, to: str, context: _Context) -> Message:
        documents = None
        if kind is MessageKind.SIGN_IN:
            url = sign_in_url(self.services, event.account_id, event.subject)
            composed = compose_sign_in(context.store, url, context.words)
        else:
            documents = self._documents(event, kind, context.store)
            composed = self._composed(event, kind, context, documents)
        settings = context.settings
        return Message(
            to=to,
            from_address=self.services.settings.mail_from,
            from_name=settings.from_name or context.store.name,
            reply_to=settings.reply_to,
            subject=composed.subject,
            html=composed.html,
            text=composed.text,
            idempotency_key=f"{event.id}.{kind.value}",
            tags={"account": str(event.account_id), "event": event.id, "kind": kind.value},
            attachments=documents.files if documents else (),
        )

    def _composed(
        self, event: DomainEvent, kind: MessageKind, context: _Context, documents: Documents | None
    ) -> Composed:
        subject = event.subject
        if kind in DECLINED and context.recurring is not None and "renewal_charge" not in subject:
            # "We could not take …": the charge the renewal tries, tax included, as the
            # subscription's views tell it (webstore.subscriptions.renewal_tax).
            charge = expected_renewal(self.services, context.store, context.recurring)
            subject = {
                **subject,
                "renewal_charge": {"amount": float(charge.amount), "tax": float(charge.tax)},
            }
        return compose(
            kind,
            context.store,
            subject,
            recurring=context.recurring,
            manage_url=self._manage_url(event),
            documents=documents,
            override=self.repo.template(event.account_id, kind.value),
            words=context.words,
        )
