"""The account partition's set-up records: servers and their secrets, codes, webhooks, sequences."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime

from webstore import keys
from webstore.catalog import Coupon, CreatorCode, GiftCard, WebhookEndpoint
from webstore.db import ConditionFailed, Item, Table, Transaction, from_item, start_read, to_item
from webstore.errors import Conflict, NotFound
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_revision import bump_in
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.servers import Server

# Who made a change and its audit summary from what was written.
Audit = tuple[str, Callable[[Coupon], str]]


@dataclass(frozen=True)
class CouponPage:
    """One page of coupons in id order, whether more follow it, and the account's total."""

    coupons: list[Coupon]
    more_after: bool
    total: int


class AccountRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- sequences: every write takes its ids in its own transaction (repo/sequences.py) ---

    def raise_sequence(self, account_id: int, sequence: str, at_least: int) -> None:
        """Make sure `sequence` never hands out ids up to `at_least` (imported ids)."""
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM),
                "SET #s = :m",
                condition="attribute_not_exists(#s) OR #s < :m",
                names={"#s": sequence},
                values={":m": at_least},
            )

    # --- servers and their secrets ---

    def server(self, account_id: int, server_id: int, *, consistent: bool = False) -> Server | None:
        item = self.table.get(
            keys.key(keys.account_pk(account_id), keys.server_sk(server_id)), consistent=consistent
        )
        return from_item(Server, item) if item else None

    def servers(self, account_id: int) -> dict[int, Server]:
        """The account's servers by id: one Query."""
        items, _ = self.table.query(keys.account_pk(account_id), sk_prefix=keys.SERVER_PREFIX)
        return {int(i["id"]): from_item(Server, i) for i in items}

    def save_server(self, account_id: int, server: Server, previous_hash: str | None) -> None:
        """Store a server and point its secret's hash at it, replacing an older secret: one
        transaction."""
        tx = Transaction(self.table)
        tx.put(to_item(server, keys.account_pk(account_id), keys.server_sk(server.id), "server"))
        if previous_hash and previous_hash != server.secret_hash:
            tx.delete(keys.secret_key(previous_hash))
        if server.secret_hash:
            tx.put(
                {
                    **keys.secret_key(server.secret_hash),
                    "entity": "secret",
                    "account_id": account_id,
                    "server_id": server.id,
                }
            )
        tx.commit()

    # --- coupons: by id (operator) and by code (storefront); the code item is unique ---

    def coupon_items(self, account_id: int, coupon: Coupon) -> tuple[Item, Item]:
        """The coupon by id and by code (the catalog import upserts both)."""
        pk = keys.account_pk(account_id)
        return (
            to_item(coupon, pk, keys.coupon_sk(coupon.id), "coupon"),
            to_item(coupon, pk, keys.coupon_code_sk(coupon.code), "coupon_code"),
        )

    def coupon_count(self, account_id: int) -> int:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM))
        return int((item or {}).get("coupon_count", 0))

    def recount_coupons(self, account_id: int) -> int:
        """Set `coupon_count` from the coupon items (catalog import; not a request path)."""
        total, start = 0, None
        while True:
            page, start = self.table.query(
                keys.account_pk(account_id), sk_between=keys.id_range(keys.coupon_sk), start_key=start
            )
            total += len(page)
            if start is None:
                break
        self.table.update(
            keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM),
            "SET coupon_count = :n",
            values={":n": total},
        )
        return total

    def create_coupon(
        self,
        account_id: int,
        make: Callable[[int], Coupon],
        *,
        first_read: Future[IdAllocation] | None = None,
        audit: Audit | None = None,
    ) -> Coupon:
        """A new coupon, `make(id)` under the next `coupon` id: the coupon, its code item (the code
        is unique), the count, the id, one more catalog revision and the audit entry (`audit`:
        who, and the summary of the coupon) in one transaction (read again on contention)."""

        def build(ids: IdAllocation) -> tuple[Transaction, Coupon]:
            coupon = make(ids.take("coupon")[0])
            by_id, by_code = self.coupon_items(account_id, coupon)
            tx = Transaction(self.table)
            tx.put(
                by_id,
                condition="attribute_not_exists(PK)",
                fails=Conflict(f"Coupon {coupon.id} already exists"),
            )
            tx.put(
                by_code,
                condition="attribute_not_exists(PK)",
                fails=Conflict(f"A coupon with code {coupon.code!r} already exists", field="code"),
            )
            ids.add("coupon_count", 1)
            bump_in(tx, account_id)
            if audit is not None:
                actor, summary = audit
                AuditLog(self.table).add_to(
                    tx, account_id, actor, "catalog.coupon.create", summary(coupon), coupon.created_at
                )
            return tx, coupon

        return SequenceRepository(self.table).write(account_id, build, first_read=first_read)

    def coupon(self, account_id: int, coupon_id: int) -> Coupon:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.coupon_sk(coupon_id)))
        if item is None:
            raise NotFound("Coupon not found")
        return from_item(Coupon, item)

    def coupon_by_code_key(self, account_id: int, code: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.coupon_code_sk(code))

    def coupon_by_code(self, account_id: int, code: str) -> Coupon:
        item = self.table.get(self.coupon_by_code_key(account_id, code))
        if item is None:
            raise NotFound("Coupon not found")
        return from_item(Coupon, item)

    def coupon_page(
        self,
        account_id: int,
        limit: int,
        *,
        after: int | None = None,
        before: int | None = None,
        skip: int = 0,
    ) -> CouponPage:
        """Up to `limit` coupons in id order: those before id `before`, else those after id
        `after`, else those after the first `skip` (a keys-only Query finds where that is).
        One Query, with the total (a counter) read beside it."""
        pk = keys.account_pk(account_id)
        total = start_read(self.coupon_count, account_id)
        if before is not None:
            items: list[Item] = []
            if before > 1:
                items, _ = self.table.query(
                    pk, sk_between=keys.id_range(keys.coupon_sk, 1, before - 1), forward=False, limit=limit
                )
                items.reverse()
            more_after = True
        else:
            start = after if after is not None else (self._coupon_id_after(pk, skip) if skip else None)
            first = start + 1 if start is not None else 1
            items = []
            if first <= keys.INT32_MAX:
                items, _ = self.table.query(
                    pk, sk_between=keys.id_range(keys.coupon_sk, first), limit=limit + 1
                )
            more_after = len(items) > limit
        coupons = [from_item(Coupon, i) for i in items[:limit]]
        return CouponPage(coupons, more_after, total.result())

    def _coupon_id_after(self, pk: str, skipped: int) -> int:
        """The id of the `skipped`-th coupon (keys only); past the end, the highest id."""
        items, _ = self.table.query(
            pk, sk_between=keys.id_range(keys.coupon_sk), limit=skipped, projection="PK, SK"
        )
        if len(items) < skipped:
            return keys.INT32_MAX  # past the end: an empty page
        return keys.id_of(items[-1]["SK"])

    def delete_coupon(
        self, account_id: int, coupon: Coupon, audit: tuple[str, str, datetime] | None = None
    ) -> None:
        """The coupon, its code item, its count, one more catalog revision and the audit entry
        (`audit`: who, the summary, when): one transaction (NotFound if it went meanwhile)."""
        pk = keys.account_pk(account_id)
        tx = Transaction(self.table)
        tx.delete(
            keys.key(pk, keys.coupon_sk(coupon.id)),
            condition="attribute_exists(PK)",
            fails=NotFound("Coupon not found"),
        )
        tx.delete(keys.key(pk, keys.coupon_code_sk(coupon.code)))
        # `coupon_count` on the sequences item: the operator's coupon list total
        tx.update(SequenceRepository.key(account_id), "ADD coupon_count :delta", values={":delta": -1})
        bump_in(tx, account_id)
        if audit is not None:
            actor, summary, now = audit
            AuditLog(self.table).add_to(tx, account_id, actor, "catalog.coupon.delete", summary, now)
        tx.commit()

    # --- gift cards, creator codes, webhook endpoints ---

    def giftcard_key(self, account_id: int, card_number: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.giftcard_sk(card_number))

    def giftcard_item(self, account_id: int, card: GiftCard) -> Item:
        """The card by number (what baskets and checkout use), listed by id on GSI1 (operators)."""
        key = self.giftcard_key(account_id, card.card_number)
        return to_item(
            card,
            key["PK"],
            key["SK"],
            "giftcard",
            GSI1PK=keys.giftcards_of_account(account_id),
            GSI1SK=keys.giftcard_gsi1sk(card.id),
        )

    def creator_code_key(self, account_id: int, code: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.creator_code_sk(code))

    def creator_code_item(self, account_id: int, code: CreatorCode) -> Item:
        key = self.creator_code_key(account_id, code.code)
        return to_item(code, key["PK"], key["SK"], "creator_code")

    def webhook_item(self, account_id: int, endpoint: WebhookEndpoint, seal: Callable[[str], str]) -> Item:
        """The endpoint as stored: its signing secret sealed (`seal`: webstore.sealing's under
        the stage's box), never as given."""
        sealed = endpoint.model_copy(update={"secret": seal(endpoint.secret)})
        return to_item(sealed, keys.account_pk(account_id), keys.webhook_sk(endpoint.id), "webhook_endpoint")

    @staticmethod
    def webhook_endpoint(item: Item, open_sealed: Callable[[str], str]) -> WebhookEndpoint:
        """A stored endpoint with its signing secret opened by `open_sealed` (SealBroken if it
        does not open)."""
        endpoint = from_item(WebhookEndpoint, item)
        return endpoint.model_copy(update={"secret": open_sealed(endpoint.secret)})
