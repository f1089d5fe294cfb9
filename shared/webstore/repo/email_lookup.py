""" "Find my subscriptions": a store's payments by the buyer's e-mail address, and the single-use
items of the sign-in links it mails.

- `ACCOUNT#{a}#EMAIL#{digest}` / `PAY#{id}`: one pointer per paid payment that gave an address,
  written in the payment's own transaction (`payments.core.add_paid_payment`); the address is
  only in the key as a digest (`keys.email_digest`). Payments recorded before the pointer
  existed have none until backfilled.
- `ACCOUNT#{a}#SIGNIN#{nonce}` / `SIGNIN`: put when a link is mailed, claimed (`used_at` set
  under a condition) the one time it is opened; TTL-deleted after it expires.
"""

from __future__ import annotations

from dataclasses import dataclass

from webstore import keys
from webstore.db import ConditionFailed, Table, from_item
from webstore.recurring import RecurringPayment
from webstore.repo import Transaction
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.recurring_payments import recurring_key

MAX_PAYMENTS = 100  # the newest payments a sign-in page lists


@dataclass(frozen=True)
class EmailHistory:
    payments: list[PaymentRecord]  # newest first
    subscriptions: list[RecurringPayment]  # of those payments, newest first


class EmailLookupRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    @staticmethod
    def add_pointer(tx: Transaction, payment: PaymentRecord, email: str) -> None:
        """The payment's pointer under the buyer's e-mail address (nothing without one)."""
        if not email.strip():
            return
        tx.put(
            {
                **keys.key(keys.email_payments_pk(payment.account_id, email), keys.payment_sk(payment.id)),
                "entity": "email_payment",
                "payment_id": payment.id,
            }
        )

    def has_payments(self, account_id: int, email: str) -> bool:
        """Whether the address paid anything at this store (one Query of one item)."""
        items, _ = self.table.query(keys.email_payments_pk(account_id, email), limit=1)
        return bool(items)

    def history(self, account_id: int, email: str) -> EmailHistory:
        """The address's newest payments at this store and the subscriptions they belong to."""
        pointers, _ = self.table.query(
            keys.email_payments_pk(account_id, email), forward=False, limit=MAX_PAYMENTS
        )
        items = self.table.batch_get(
            [PaymentRepository.key(account_id, int(p["payment_id"])) for p in pointers]
        )
        payments = [from_item(PaymentRecord, i) for i in items if i.get("entity") == "payment"]
        # A first payment learns its subscription's reference after the pointer was written.
        references = {p.recurring_payment_reference or p.transaction_id for p in payments}
        found = self.table.batch_get([recurring_key(account_id, r) for r in sorted(references)])
        recurring = [from_item(RecurringPayment, i) for i in found if i.get("entity") == "recurring_payment"]
        payments.sort(key=lambda p: p.id, reverse=True)
        recurring.sort(key=lambda r: r.created_at, reverse=True)
        return EmailHistory(payments, recurring)

    @staticmethod
    def add_sign_in(tx: Transaction, account_id: int, nonce: str, email: str, expires_at: int) -> None:
        """The link's single-use item, holding the address it lists (deleted by TTL), in `tx`
        (with the outbox item of its mail)."""
        tx.put(
            {
                **keys.sign_in_link_key(account_id, nonce),
                "entity": "sign_in_link",
                "email": email,
                "expires_at": expires_at,
            },
            condition="attribute_not_exists(PK)",
        )

    def claim_sign_in(self, account_id: int, nonce: str, now: int) -> str | None:
        """Use the link once: its address the first time an unexpired link is opened; None for
        every other opening (used, expired, unknown)."""
        try:
            item = self.table.update(
                keys.sign_in_link_key(account_id, nonce),
                "SET used_at = :now",
                condition="attribute_exists(PK) AND attribute_not_exists(used_at) AND expires_at > :now",
                values={":now": now},
                return_values="ALL_NEW",
            )
        except ConditionFailed:
            return None
        return str(item["email"])


def backfill_pointers(table: Table, account_id: int, page: int = 200) -> int:
    """Give every payment of the account that has an e-mail address its pointer (payments
    recorded before pointers existed; scripts/backfill_email_pointers.py). A Query of the
    account's payments, page by page, and one PutItem per payment with an address (the same
    item the payment's transaction writes, so running it twice changes nothing); how many."""
    done = 0
    start = None
    while True:
        items, start = table.query(
            keys.account_pk(account_id),
            sk_between=(keys.payment_sk(1), keys.payment_sk(keys.INT32_MAX)),
            limit=page,
            start_key=start,
        )
        for item in items:
            email = str(item.get("email") or "").strip()
            if email:
                table.put(
                    {
                        **keys.key(
                            keys.email_payments_pk(account_id, email), keys.payment_sk(int(item["id"]))
                        ),
                        "entity": "email_payment",
                        "payment_id": int(item["id"]),
                    }
                )
                done += 1
        if start is None:
            return done
