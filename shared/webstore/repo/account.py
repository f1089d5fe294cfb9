"""The account partition's set-up records: servers and their secrets, codes, webhooks, sequences."""

from __future__ import annotations

import contextlib

from webstore import keys
from webstore.catalog import Coupon, CreatorCode, GiftCard, Server, WebhookEndpoint
from webstore.db import ConditionFailed, Item, Table, TransactAction, from_item, to_item
from webstore.errors import Conflict, NotFound
from webstore.secret_box import SecretBox


class AccountRepository:
    def __init__(self, table: Table) -> None:
        self.table = table

    # --- sequences: per-account atomic counters; ids stay within 32 bits ---

    def next_ids(self, account_id: int, sequence: str, count: int = 1) -> list[int]:
        """Reserve `count` consecutive ids of `sequence` (one UpdateItem)."""
        result = self.table.update(
            keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM),
            "ADD #s :n",
            names={"#s": sequence},
            values={":n": count},
            return_values="UPDATED_NEW",
        )
        last = int(result[sequence])
        if last > keys.INT32_MAX:
            raise Conflict(f"The {sequence} id space of this account is exhausted")
        return list(range(last - count + 1, last + 1))

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

    def server(self, account_id: int, server_id: int) -> Server | None:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.server_sk(server_id)))
        return from_item(Server, item) if item else None

    def server_actions(
        self, account_id: int, server: Server, previous_hash: str | None
    ) -> list[TransactAction]:
        """Store a server and point its secret's hash at it (replacing an older secret)."""
        actions = [
            TransactAction.put(
                to_item(server, keys.account_pk(account_id), keys.server_sk(server.id), "server")
            )
        ]
        if previous_hash and previous_hash != server.secret_hash:
            actions.append(TransactAction.delete(keys.secret_key(previous_hash)))
        if server.secret_hash:
            actions.append(
                TransactAction.put(
                    {
                        **keys.secret_key(server.secret_hash),
                        "entity": "secret",
                        "account_id": account_id,
                        "server_id": server.id,
                    }
                )
            )
        return actions

    def secret(self, secret_hash: str) -> Item | None:
        return self.table.get(keys.secret_key(secret_hash))

    # --- coupons: by id (operator) and by code (storefront); the code item is unique ---

    def coupon_actions(self, account_id: int, coupon: Coupon, *, new: bool) -> list[TransactAction]:
        pk = keys.account_pk(account_id)
        coupon_item = to_item(coupon, pk, keys.coupon_sk(coupon.id), "coupon")
        code_item = to_item(coupon, pk, keys.coupon_code_sk(coupon.code), "coupon_code")
        if new:
            return [
                TransactAction.put(coupon_item, condition="attribute_not_exists(PK)"),
                TransactAction.put(code_item, condition="attribute_not_exists(PK)"),
            ]
        # Re-import: definition fields change, the redemption count stays.
        return [TransactAction.put(coupon_item), TransactAction.put(code_item)]

    def _coupon_count(self, account_id: int, delta: int) -> TransactAction:
        """`coupon_count` on the sequences item: the operator's coupon list total."""
        return TransactAction.update(
            keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM),
            "ADD coupon_count :delta",
            values={":delta": delta},
        )

    def coupon_count(self, account_id: int) -> int:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.SEQUENCES_ITEM))
        return int((item or {}).get("coupon_count", 0))

    def recount_coupons(self, account_id: int) -> int:
        """Set `coupon_count` from the coupon items (catalog import; not a request path)."""
        total, start = 0, None
        while True:
            page, start = self.table.query(
                keys.account_pk(account_id),
                sk_between=(keys.coupon_sk(1), keys.coupon_sk(keys.INT32_MAX)),
                start_key=start,
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

    def create_coupon(self, account_id: int, coupon: Coupon) -> None:
        try:
            self.table.transact(
                [*self.coupon_actions(account_id, coupon, new=True), self._coupon_count(account_id, 1)]
            )
        except Conflict as error:
            raise Conflict(f"A coupon with code {coupon.code!r} already exists", field="code") from error

    def coupon(self, account_id: int, coupon_id: int) -> Coupon:
        item = self.table.get(keys.key(keys.account_pk(account_id), keys.coupon_sk(coupon_id)))
        if item is None:
            raise NotFound("Coupon not found")
        return from_item(Coupon, item)

    def coupon_by_code_key(self, account_id: int, code: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.coupon_code_sk(code))

    def delete_coupon(self, account_id: int, coupon: Coupon) -> None:
        pk = keys.account_pk(account_id)
        try:
            self.table.transact(
                [
                    TransactAction.delete(
                        keys.key(pk, keys.coupon_sk(coupon.id)), condition="attribute_exists(PK)"
                    ),
                    TransactAction.delete(keys.key(pk, keys.coupon_code_sk(coupon.code))),
                    self._coupon_count(account_id, -1),
                ]
            )
        except Conflict as error:  # deleted meanwhile by another request
            raise NotFound("Coupon not found") from error

    # --- gift cards, creator codes, webhook endpoints ---

    def giftcard_key(self, account_id: int, card_number: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.giftcard_sk(card_number))

    def giftcard_item(self, account_id: int, card: GiftCard) -> Item:
        key = self.giftcard_key(account_id, card.card_number)
        return to_item(card, key["PK"], key["SK"], "giftcard")

    def creator_code_key(self, account_id: int, code: str) -> dict[str, str]:
        return keys.key(keys.account_pk(account_id), keys.creator_code_sk(code))

    def creator_code_item(self, account_id: int, code: CreatorCode) -> Item:
        key = self.creator_code_key(account_id, code.code)
        return to_item(code, key["PK"], key["SK"], "creator_code")

    def webhook_item(self, account_id: int, endpoint: WebhookEndpoint, secrets: SecretBox) -> Item:
        """The endpoint as stored: its signing secret sealed, never as given."""
        sealed = endpoint.model_copy(update={"secret": secrets.seal(endpoint.secret)})
        return to_item(sealed, keys.account_pk(account_id), keys.webhook_sk(endpoint.id), "webhook_endpoint")

    @staticmethod
    def webhook_endpoint(item: Item, secrets: SecretBox) -> WebhookEndpoint:
        """A stored endpoint with its signing secret opened (SealBroken if it does not open)."""
        endpoint = from_item(WebhookEndpoint, item)
        return endpoint.model_copy(update={"secret": secrets.open(endpoint.secret)})
