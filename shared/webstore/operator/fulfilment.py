"""Fulfilment: the one use case every payment source calls once money is in.

`fulfil(services, order)` records the payment and everything it causes, idempotently per
`order.idempotency_key`:

1. One TransactWriteItems (retried on write contention) holding every invariant: the payment
   id (`SEQ.payment = previous`, so ids stay dense), the order's idempotency record, coupon
   redemption and per-user counts (conditions enforce the limits), gift card balances
   (`balance >= amount`), user_limit purchase counts, community goal progress, tier records,
   store stats, the player records, the payment (with its command plan) and the first chunk
   of queued commands.
2. When the commands do not fit in that transaction, the rest follow in chunks of <= 100
   actions, each also advancing `chunks_done` on the payment with a condition, so a re-run
   continues where a crash stopped and never queues a chunk twice.
3. `payment.completed` is published with an id derived from the payment (receivers dedupe).

Status changes (refund, chargeback) use the same plan/chunk mechanism for their triggers.
"""

from __future__ import annotations

import random
import re
import time
import uuid as uuid_module
from calendar import monthrange
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Any

from pydantic import Field, field_validator

from webstore import keys
from webstore.catalog import (
    CommandTrigger,
    CommunityGoal,
    Coupon,
    GoalStatus,
    Model,
    Package,
    PackageType,
)
from webstore.db import Item, TransactAction, TransactionCancelled, from_item, to_item
from webstore.errors import Conflict, Invalid
from webstore.events import DomainEvent
from webstore.money import ZERO, round_money
from webstore.payment_subject import SubjectLine, SubjectPayment
from webstore.payment_subject import payment_subject as subject_of
from webstore.players import RecentPayment, StoreStats, Tier
from webstore.repo.account import AccountRepository
from webstore.repo.payments import GiftCardUse, PaymentLine, PaymentNote, PaymentRecord, PaymentRepository
from webstore.repo.player_tiers import tier_item
from webstore.repo.queue import QueuedCommand, QueueRepository, enqueue_cost
from webstore.repo.store import StoreRepository, StoreView
from webstore.repo.users import User, UserRepository
from webstore.services import Services

MAX_LINES = 100
MAX_ATTEMPTS = 40
RESERVED_PLACEHOLDERS = {"id", "name", "username"}  # the plugin substitutes these
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")
_IDEMPOTENCY_KEY = re.compile(r"^[A-Za-z0-9_\-:.]{1,128}$")
EVENT_NAMESPACE = uuid_module.UUID("6f1c2a4e-8f4b-4c1e-9d0a-2b7e5c3d9a10")


class OrderLine(Model):
    package_id: int = Field(ge=1, le=keys.INT32_MAX)
    quantity: int = Field(default=1, ge=1, le=1000)
    paid_price: Decimal = Field(ge=0)  # for the whole line
    variables: dict[str, str] = Field(default_factory=dict)
    gift_username: str | None = None  # gift target: receives the package and its commands
    # A basket's dynamic package (checkout): recorded on the payment, queues no commands.
    dynamic: bool = False
    name: str | None = None
    category_id: int | None = None


class Order(Model):
    """What a payment source hands to fulfilment (manual payment, hosted checkout)."""

    account_id: int = Field(ge=1, le=keys.INT32_MAX)
    idempotency_key: str
    username: str
    email: str = ""
    ip: str = ""
    country: str = ""
    lines: list[OrderLine] = Field(min_length=1, max_length=MAX_LINES)
    price_paid: Decimal = Field(ge=0)
    currency: str
    gateway: str = "Manual"
    coupons: list[str] = Field(default_factory=list)
    giftcards: list[GiftCardUse] = Field(default_factory=list)
    creator_code: str = ""
    basket_ident: str | None = None
    custom: dict[str, Any] | None = None
    note: str = ""

    @field_validator("idempotency_key")
    @classmethod
    def _key_shape(cls, value: str) -> str:
        if not _IDEMPOTENCY_KEY.match(value):
            raise ValueError("1 to 128 letters, digits or _-:.")
        return value


# --- the use case ------------------------------------------------------------------------------


def fulfil(services: Services, order: Order, view: StoreView | None = None) -> PaymentRecord:
    """Record the payment of `order` and queue what it causes; the same order twice → the
    same payment, nothing doubled. Conflict when a coupon, gift card or user limit refuses.
    `view` (the store partition as `StoreRepository.operator_view` reads it) saves a read when
    the caller already has it."""
    # A re-run is recognised by the order record in the first read of the attempt loop.
    users = UserRepository(services.table)
    buyer = users.ensure(order.username)
    recipients = {buyer.username.lower(): buyer}
    for line in order.lines:
        if line.gift_username and line.gift_username.lower() not in recipients:
            recipients[line.gift_username.lower()] = users.ensure(line.gift_username)
    if view is None or view.store.id != order.account_id:
        view = StoreRepository(services.table).operator_view(order.account_id)
    if order.currency.upper() != view.store.currency:
        raise Invalid(f"The store sells in {view.store.currency}", field="currency")
    now = services.now()
    lines = _payment_lines(order, view, buyer, recipients)
    purchase_commands = commands_for(lines, view, CommandTrigger.PURCHASE, now)
    accounts = AccountRepository(services.table)
    command_ids = (
        accounts.next_ids(order.account_id, "command", len(purchase_commands)) if purchase_commands else []
    )
    tier_lines = _tier_lines(lines, view)
    spare_tier_ids = accounts.next_ids(order.account_id, "tier", len(tier_lines)) if tier_lines else []

    for attempt in range(MAX_ATTEMPTS):
        plan = _Plan(services, order, view, buyer, lines, now)
        reads = plan.read(tier_lines)
        if reads.order is not None:
            return _finish(services, _payment_of_order(services, order.account_id, reads.order))
        payment = plan.payment(reads)
        commands = [
            c.model_copy(update={"id": command_ids[i], "payment_id": payment.id})
            for i, c in enumerate(purchase_commands)
        ]
        actions = plan.actions(reads, payment, tier_lines, spare_tier_ids)
        payment.plans[CommandTrigger.PURCHASE.value] = chunk_commands(commands, 100 - len(actions) - 1)
        first = payment.plans[CommandTrigger.PURCHASE.value][:1]
        payment.chunks_done[CommandTrigger.PURCHASE.value] = len(first)
        actions.append(
            TransactAction.put(PaymentRepository.item(payment), condition="attribute_not_exists(PK)")
        )
        for chunk in first:
            actions.extend(QueueRepository(services.table).enqueue_actions(order.account_id, chunk))
        try:
            services.table.transact(actions)
        except TransactionCancelled as cancelled:
            plan.explain(cancelled)  # raises for limits; returns for contention
            _backoff(attempt)
            continue
        return _finish(services, payment)
    raise Conflict("The store is busy; the payment was not recorded, try again")


def _payment_of_order(services: Services, account_id: int, order_item: Item) -> PaymentRecord:
    payment = PaymentRepository(services.table).get(
        account_id, int(order_item["payment_id"]), consistent=True
    )
    if payment is None:  # the order record and the payment are written in one transaction
        raise Conflict("The order's payment is missing")
    return payment


def _finish(services: Services, payment: PaymentRecord) -> PaymentRecord:
    """Queue the remaining command chunks of every trigger, then publish the payment event."""
    for trigger in list(payment.plans):
        run_pending_chunks(services, payment, trigger)
    publish_status(services, payment)
    return payment


def run_pending_chunks(services: Services, payment: PaymentRecord, trigger: str) -> None:
    """Each chunk in one transaction with `chunks_done.trigger = i - 1 → i` on the payment, so a
    chunk is queued exactly once however often this runs."""
    queue = QueueRepository(services.table)
    for chunk in payment.pending_chunks(trigger):
        done = payment.chunks_done.get(trigger, 0)
        actions = queue.enqueue_actions(payment.account_id, chunk)
        actions.append(
            TransactAction.update(
                PaymentRepository.key(payment.account_id, payment.id),
                "SET chunks_done.#t = :next",
                condition="chunks_done.#t = :done",
                names={"#t": trigger},
                values={":next": done + 1, ":done": done},
            )
        )
        try:
            services.table.transact(actions)
        except TransactionCancelled:
            fresh = PaymentRepository(services.table).get(payment.account_id, payment.id, consistent=True)
            if fresh is None or fresh.chunks_done.get(trigger, 0) <= done:
                raise
            payment.chunks_done[trigger] = fresh.chunks_done[trigger]  # another run did it
            continue
        payment.chunks_done[trigger] = done + 1


def chunk_commands(commands: Sequence[QueuedCommand], first_capacity: int) -> list[list[QueuedCommand]]:
    """Split commands into transactions: the first shares one with the payment (room:
    `first_capacity` actions), later ones hold 99 (one action advances `chunks_done`)."""
    chunks: list[list[QueuedCommand]] = []
    current: list[QueuedCommand] = []
    capacity = first_capacity
    for command in commands:
        if enqueue_cost([*current, command]) > capacity:
            chunks.append(current)  # empty when the payment's transaction had no room left
            current, capacity = [], 99
        current.append(command)
    if current:
        chunks.append(current)
    return chunks


def _backoff(attempt: int) -> None:
    time.sleep(random.uniform(0, 0.005 * (attempt + 1)))


# --- planning ----------------------------------------------------------------------------------


def _payment_lines(
    order: Order, view: StoreView, buyer: User, recipients: dict[str, User]
) -> list[PaymentLine]:
    lines = []
    for index, line in enumerate(order.lines):
        receiver = recipients[(line.gift_username or buyer.username).lower()]
        if line.dynamic:
            lines.append(_dynamic_line(line, receiver, index))
            continue
        package = view.package(line.package_id)
        if package is None:
            raise Invalid(f"Package {line.package_id} does not exist", field=f"packages.{index}.id")
        if line.quantity > 1 and package.disable_quantity:
            raise Invalid(f"Package {package.id} is sold one at a time", field=f"packages.{index}.quantity")
        if package.user_limit and line.quantity > package.user_limit:
            raise Invalid(
                f"Package {package.id} may be bought {package.user_limit} time(s) per player",
                field=f"packages.{index}.quantity",
            )
        missing = [v for v in package.variables if not line.variables.get(v)]
        if missing:
            raise Invalid(
                f"Package {package.id} needs a value for {', '.join(missing)}",
                field=f"packages.{index}.options",
            )
        lines.append(
            PaymentLine(
                package_id=package.id,
                category_id=package.category_id,
                subscription=package.type is PackageType.SUBSCRIPTION,
                name=package.name,
                quantity=line.quantity,
                base_price=package.price,
                price=line.paid_price,
                variables={k: v for k, v in line.variables.items() if k in package.variables},
                username_id=receiver.id,
                username=receiver.username,
                uuid=receiver.uuid,
            )
        )
    return lines


def _dynamic_line(line: OrderLine, receiver: User, index: int) -> PaymentLine:
    if not line.name or line.category_id is None:
        raise Invalid("A dynamic package line needs its name and category", field=f"packages.{index}")
    return PaymentLine(
        package_id=line.package_id,
        category_id=line.category_id,
        name=line.name,
        quantity=line.quantity,
        base_price=line.paid_price / line.quantity,
        price=line.paid_price,
        variables=dict(line.variables),
        username_id=receiver.id,
        username=receiver.username,
        uuid=receiver.uuid,
        dynamic=True,
    )


def commands_for(
    lines: list[PaymentLine], view: StoreView, trigger: CommandTrigger, now: datetime
) -> list[QueuedCommand]:
    """One queued command per package command of `trigger`, per unit bought (ids assigned later)."""
    commands = []
    for line in lines:
        package = None if line.dynamic else view.package(line.package_id)
        if package is None:
            continue
        for _unit in range(line.quantity):
            for command in package.commands:
                if command.trigger is not trigger:
                    continue
                commands.append(
                    QueuedCommand(
                        id=0,
                        server_id=command.server_id,
                        command=_fill_variables(command.command, line.variables),
                        package_id=package.id,
                        trigger=trigger.value,
                        require_online=command.require_online,
                        delay=command.delay,
                        slots=command.slots,
                        username_id=line.username_id,
                        username=line.username,
                        uuid=line.uuid,
                        created_at=now,
                    )
                )
    return commands


def _fill_variables(text: str, variables: dict[str, str]) -> str:
    """Package variables are ours to fill; `{id}`, `{name}`, `{username}` stay for the plugin."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in RESERVED_PLACEHOLDERS or name not in variables:
            return match.group(0)
        return variables[name]

    return _PLACEHOLDER.sub(replace, text)


def _tier_lines(lines: list[PaymentLine], view: StoreView) -> list[PaymentLine]:
    """The last subscription line per (player, tiered category): the tier it sets."""
    chosen: dict[tuple[int, int], PaymentLine] = {}
    for line in lines:
        if line.dynamic:
            continue
        package = view.package(line.package_id)
        category = view.category(line.category_id)
        if package and category and category.tiered and package.type is PackageType.SUBSCRIPTION:
            chosen[(line.username_id, line.category_id)] = line
    return list(chosen.values())


@dataclass
class _Reads:
    order: Item | None
    sequence: Item
    items: dict[tuple[str, str], Item] = field(default_factory=dict)

    def get(self, key: dict[str, str]) -> Item | None:
        return self.items.get((key["PK"], key["SK"]))


class _Plan:
    """One attempt: read what the conditions compare against, then build the transaction."""

    def __init__(
        self,
        services: Services,
        order: Order,
        view: StoreView,
        buyer: User,
        lines: list[PaymentLine],
        now: datetime,
    ) -> None:
        self.services = services
        self.order = order
        self.view = view
        self.buyer = buyer
        self.lines = lines
        self.now = now
        self.a = order.account_id
        self.pk = keys.account_pk(self.a)
        self.labels: list[str] = []  # why each action is there (explains a cancellation)

    # keys

    def _order_key(self) -> dict[str, str]:
        return keys.key(self.pk, keys.order_sk(self.order.idempotency_key))

    def _seq_key(self) -> dict[str, str]:
        return keys.key(self.pk, keys.SEQUENCES_ITEM)

    def _stats_key(self) -> dict[str, str]:
        return keys.key(keys.store_pk(self.a), keys.STATS_ITEM)

    def _spend_key(self) -> dict[str, str]:
        return keys.key(self.pk, keys.spend_sk(self.now.strftime("%Y-%m"), self.buyer.id))

    def read(self, tier_lines: list[PaymentLine]) -> _Reads:
        """Everything the transaction's conditions compare against: one consistent BatchGetItem."""
        wanted = [self._order_key(), self._seq_key(), self._stats_key(), self._spend_key()]
        accounts = AccountRepository(self.services.table)
        for code in self.order.coupons:
            wanted.append(accounts.coupon_by_code_key(self.a, code))
        for card in self.order.giftcards:
            wanted.append(accounts.giftcard_key(self.a, card.card_number))
        for goal in self.view.goals:
            wanted.append(keys.key(keys.store_pk(self.a), keys.goal_sk(goal.id)))
        for line in tier_lines:
            wanted.append(keys.key(self.pk, keys.tier_slot_sk(line.username_id, line.category_id)))
        found = {(i["PK"], i["SK"]): i for i in self.services.table.batch_get(wanted, consistent=True)}
        reads = _Reads(
            order=found.get((self.pk, keys.order_sk(self.order.idempotency_key))),
            sequence=found.get((self.pk, keys.SEQUENCES_ITEM), {}),
            items=found,
        )
        self.coupons = self._coupons(reads)
        return reads

    def _coupons(self, reads: _Reads) -> list[Coupon]:
        coupons = []
        accounts = AccountRepository(self.services.table)
        for code in dict.fromkeys(c.upper() for c in self.order.coupons):
            item = reads.get(accounts.coupon_by_code_key(self.a, code))
            if item is None:
                raise Invalid(f"Coupon {code} does not exist", field="coupons")
            coupon = from_item(Coupon, item)
            if coupon.username and coupon.username.lower() != self.buyer.username.lower():
                raise Invalid(f"Coupon {code} is for another player", field="coupons")
            coupons.append(coupon)
        return coupons

    def payment(self, reads: _Reads) -> PaymentRecord:
        payment_id = int(reads.sequence.get("payment", 0)) + 1
        if payment_id > keys.INT32_MAX:
            raise Conflict("The payment id space of this account is exhausted")
        order = self.order
        return PaymentRecord(
            id=payment_id,
            transaction_id=keys.new_transaction_id(payment_id),
            account_id=self.a,
            amount=round_money(order.price_paid, self.view.store.currency),
            currency=self.view.store.currency,
            gateway=order.gateway,
            email=order.email,
            ip=order.ip,
            country=order.country,
            username_id=self.buyer.id,
            username=self.buyer.username,
            uuid=self.buyer.uuid,
            lines=self.lines,
            coupons=[c.code for c in self.coupons],
            giftcards=order.giftcards,
            creator_code=order.creator_code,
            basket_ident=order.basket_ident,
            custom=order.custom,
            notes=[PaymentNote(created_at=self.now, note=order.note)] if order.note else [],
            idempotency_key=order.idempotency_key,
            created_at=self.now,
            updated_at=self.now,
        )

    def actions(
        self, reads: _Reads, payment: PaymentRecord, tier_lines: list[PaymentLine], tier_ids: list[int]
    ) -> list[TransactAction]:
        actions: list[TransactAction] = []

        def add(label: str, action: TransactAction) -> None:
            self.labels.append(label)
            actions.append(action)

        previous = payment.id - 1
        add(
            "contention",
            TransactAction.update(
                self._seq_key(),
                "SET payment = :id",
                condition="payment = :prev" if previous else "attribute_not_exists(payment)",
                values={":id": payment.id, ":prev": previous} if previous else {":id": payment.id},
            ),
        )
        add(
            "order",
            TransactAction.put(
                {**self._order_key(), "entity": "order", "payment_id": payment.id},
                condition="attribute_not_exists(PK)",
            ),
        )
        self._coupon_actions(add)
        self._giftcard_actions(add)
        self._purchase_actions(add)
        self._goal_actions(reads, payment, add)
        self._tier_actions(reads, payment, tier_lines, tier_ids, add)
        self._stats_actions(reads, payment, add)
        counters = {"payments": 1, f"total_{payment.currency}": payment.amount}
        for action in player_actions(
            self.a, self.buyer, email=self.order.email, now=self.now, counters=counters
        ):
            add("contention", action)
        self.labels.append("payment")
        return actions

    def _coupon_actions(self, add: Any) -> None:
        accounts = AccountRepository(self.services.table)
        for coupon in self.coupons:
            key = accounts.coupon_by_code_key(self.a, coupon.code)
            if coupon.redeem_unlimited:
                add("contention", TransactAction.update(key, "ADD redemptions :one", values={":one": 1}))
            else:
                add(
                    f"Coupon {coupon.code} has reached its redemption limit",
                    TransactAction.update(
                        key,
                        "ADD redemptions :one",
                        condition="attribute_exists(PK) AND "
                        "(attribute_not_exists(redemptions) OR redemptions < :limit)",
                        values={":one": 1, ":limit": coupon.expire_limit},
                    ),
                )
            use_key = keys.key(self.pk, keys.coupon_use_sk(coupon.id, self.buyer.id))
            if coupon.user_limit:
                add(
                    f"Coupon {coupon.code} may be used {coupon.user_limit} time(s) per player",
                    TransactAction.update(
                        use_key,
                        "ADD uses :one SET entity = :e",
                        condition="attribute_not_exists(uses) OR uses < :limit",
                        values={":one": 1, ":limit": coupon.user_limit, ":e": "coupon_use"},
                    ),
                )
            else:
                add(
                    "contention",
                    TransactAction.update(
                        use_key, "ADD uses :one SET entity = :e", values={":one": 1, ":e": "coupon_use"}
                    ),
                )

    def _giftcard_actions(self, add: Any) -> None:
        accounts = AccountRepository(self.services.table)
        for card in self.order.giftcards:
            if card.amount <= 0:
                continue
            add(
                f"Gift card {card.card_number} does not cover {card.amount}",
                TransactAction.update(
                    accounts.giftcard_key(self.a, card.card_number),
                    "SET balance = balance - :amount",
                    condition="attribute_exists(PK) AND balance >= :amount AND #void = :no",
                    names={"#void": "void"},
                    values={":amount": card.amount, ":no": False},
                ),
            )

    def _purchase_actions(self, add: Any) -> None:
        """Purchase counts per receiving player; packages with a user_limit are conditional."""
        by_player: dict[int, dict[int, int]] = {}
        for line in self.lines:
            if line.dynamic:
                continue
            counts = by_player.setdefault(line.username_id, {})
            counts[line.package_id] = counts.get(line.package_id, 0) + line.quantity
        for username_id, counts in by_player.items():
            adds, conditions = [], []
            names: dict[str, str] = {}
            values: dict[str, Any] = {":e": "purchases"}
            for package_id, count in counts.items():
                names[f"#p{package_id}"] = f"p{package_id}"
                values[f":n{package_id}"] = count
                adds.append(f"#p{package_id} :n{package_id}")
                package = self.view.package(package_id)
                if package and package.user_limit:
                    values[f":max{package_id}"] = package.user_limit - count
                    conditions.append(
                        f"(attribute_not_exists(#p{package_id}) OR #p{package_id} <= :max{package_id})"
                    )
            add(
                "A package's purchase limit per player has been reached" if conditions else "contention",
                TransactAction.update(
                    keys.key(self.pk, keys.purchases_sk(username_id)),
                    "ADD " + ", ".join(adds) + " SET entity = :e",
                    condition=" AND ".join(conditions) or None,
                    names=names,
                    values=values,
                ),
            )

    def _goal_actions(self, reads: _Reads, payment: PaymentRecord, add: Any) -> None:
        for listed in self.view.goals:
            key = keys.key(keys.store_pk(self.a), keys.goal_sk(listed.id))
            item = reads.get(key)
            if item is None:
                continue
            goal = from_item(CommunityGoal, item)
            if goal.status is not GoalStatus.ACTIVE:
                continue
            progressed = advance_goal(goal, payment.amount, self.now)
            values: dict[str, Any] = {
                ":current": progressed.current,
                ":times": progressed.times_achieved,
                ":last": progressed.last_achieved,
                ":status": progressed.status,
                ":now": self.now,
            }
            # Unchanged since read: the progress is computed from what was read.
            conditions = []
            for attribute, placeholder in (("current", ":old"), ("times_achieved", ":old_times")):
                if attribute in item:
                    conditions.append(f"#{attribute} = {placeholder}")
                    values[placeholder] = item[attribute]
                else:
                    conditions.append(f"attribute_not_exists(#{attribute})")
            add(
                "contention",
                TransactAction.update(
                    key,
                    "SET #current = :current, #times_achieved = :times, last_achieved = :last, "
                    "#status = :status, updated_at = :now",
                    condition=" AND ".join(conditions),
                    names={"#current": "current", "#status": "status", "#times_achieved": "times_achieved"},
                    values=values,
                ),
            )

    def _tier_actions(
        self,
        reads: _Reads,
        payment: PaymentRecord,
        tier_lines: list[PaymentLine],
        tier_ids: list[int],
        add: Any,
    ) -> None:
        spare = list(tier_ids)
        for line in tier_lines:
            package = self.view.package(line.package_id)
            assert package is not None
            slot_key = keys.key(self.pk, keys.tier_slot_sk(line.username_id, line.category_id))
            slot = reads.get(slot_key)
            if slot is not None:
                tier_id = int(slot["tier_id"])
            else:
                tier_id = spare.pop(0)
                add(
                    "contention",
                    TransactAction.put(
                        {**slot_key, "entity": "tier_slot", "tier_id": tier_id},
                        condition="attribute_not_exists(PK)",
                    ),
                )
            tier = Tier(
                id=tier_id,
                username_id=line.username_id,
                category_id=line.category_id,
                package_id=line.package_id,
                active=True,
                status_id=1,
                recurring_payment_reference=payment.transaction_id,
                created_at=self.now,
                next_payment_date=next_payment_date(self.now, package),
            )
            add("contention", TransactAction.put(tier_item(self.a, tier)))

    def _stats_actions(self, reads: _Reads, payment: PaymentRecord, add: Any) -> None:
        stats_item = reads.get(self._stats_key())
        stats = from_item(StoreStats, stats_item) if stats_item else StoreStats()
        version = int((stats_item or {}).get("version", 0))
        month = self.now.strftime("%Y-%m")
        spend_item = reads.get(self._spend_key())
        spent_before = Decimal(str((spend_item or {}).get("total", 0)))
        spent = spent_before + payment.amount
        if stats.month != month:
            stats.month, stats.month_revenue, stats.top_customer = month, ZERO, None
        stats.month_revenue += payment.amount
        top_total = Decimal(str((stats.top_customer or {}).get("total", 0)))
        if stats.top_customer is None or spent > top_total:
            stats.top_customer = {
                "username": self.buyer.username,
                "username_id": self.buyer.id,
                "total": spent,
            }
        package_names = ", ".join(line.name for line in self.lines)
        stats.recent_payments = [
            RecentPayment(
                username=self.buyer.username,
                package=package_names,
                amount=payment.amount,
                currency=payment.currency,
                date=self.now,
            ),
            *stats.recent_payments,
        ][:10]
        item = to_item(stats, keys.store_pk(self.a), keys.STATS_ITEM, "stats", version=version + 1)
        if stats_item is None:
            condition, values = "attribute_not_exists(PK)", None
        elif not version:
            condition, values = "attribute_not_exists(version)", None
        else:
            condition, values = "version = :v", {":v": version}
        add("contention", TransactAction.put(item, condition=condition, values=values))
        add(
            "contention",
            TransactAction.update(
                self._spend_key(),
                "SET #total = :total, entity = :e",
                condition="attribute_not_exists(#total) OR #total = :before",
                names={"#total": "total"},
                values={":total": spent, ":before": spent_before, ":e": "spend"},
            ),
        )

    def explain(self, cancelled: TransactionCancelled) -> None:
        """Raise the domain error behind a cancellation; return when it was only contention."""
        failed = [self.labels[i] for i in cancelled.failed_indexes if i < len(self.labels)]
        for label in failed:
            if label not in ("contention", "order", "payment"):
                raise Conflict(label, field="coupons" if label.startswith("Coupon") else None)
        # contention (someone else's payment got the id first), or a duplicate order: re-read.


def advance_goal(goal: CommunityGoal, amount: Decimal, now: datetime) -> CommunityGoal:
    """Add a payment to a goal: a repeatable goal wraps around, a one-off one completes."""
    progressed = goal.model_copy()
    progressed.current = goal.current + amount
    if goal.target <= 0:
        return progressed
    if goal.repeatable:
        while progressed.current >= goal.target:
            progressed.current -= goal.target
            progressed.times_achieved += 1
            progressed.last_achieved = now
    elif progressed.current >= goal.target:
        progressed.times_achieved = max(1, goal.times_achieved)
        progressed.last_achieved = now
        progressed.status = GoalStatus.COMPLETED
    return progressed


def next_payment_date(start: datetime, package: Package) -> datetime | None:
    length = package.expiry_length
    if not length:
        return None
    if package.expiry_period == "day":
        return start + timedelta(days=length)
    months = length * (12 if package.expiry_period == "year" else 1)
    month_index = start.month - 1 + months
    year, month = start.year + month_index // 12, month_index % 12 + 1
    return start.replace(year=year, month=month, day=min(start.day, monthrange(year, month)[1]))


def player_actions(
    account_id: int,
    user: User,
    *,
    email: str,
    now: datetime,
    counters: dict[str, Any] | None = None,
) -> list[TransactAction]:
    """The player records of an account: the player item (on GSI1 with its payments) and the
    pointers by name and by UUID that player lookup starts from."""
    pk = keys.account_pk(account_id)
    expression = (
        "SET entity = :e, username_id = :id, username = :name, #uuid = :uuid, GSI1PK = :g, GSI1SK = :gs, "
        "first_seen = if_not_exists(first_seen, :now)"
    )
    values: dict[str, Any] = {
        ":e": "player",
        ":id": user.id,
        ":name": user.username,
        ":uuid": user.uuid,
        ":g": keys.payments_of_player(account_id, user.id),
        ":gs": keys.PLAYER_GSI1SK,
        ":now": now,
    }
    if email:
        expression += ", email = :email"
        values[":email"] = email
    # Counters: `payments`, `total_{CURRENCY}`, `chargebacks`, `bans` (ADD; negative to undo).
    adds = []
    for index, (name, amount) in enumerate((counters or {}).items()):
        if amount:
            adds.append(f"{name} :c{index}")
            values[f":c{index}"] = amount
    if adds:
        expression += " ADD " + ", ".join(adds)
    pointer = {"entity": "player_pointer", "username_id": user.id}
    return [
        TransactAction.update(
            keys.key(pk, keys.player_sk(user.id)), expression, names={"#uuid": "uuid"}, values=values
        ),
        TransactAction.put({**keys.key(pk, keys.player_name_sk(user.username)), **pointer}),
        TransactAction.put({**keys.key(pk, keys.player_uuid_sk(user.uuid)), **pointer}),
    ]


# --- events --------------------------------------------------------------------------------------

STATUS_EVENTS = {
    "complete": "payment.completed",
    "refund": "payment.refunded",
    "chargeback": "payment.dispute.opened",
}


def publish_status(services: Services, payment: PaymentRecord, event_type: str | None = None) -> None:
    """Publish the payment's current status; the event id is derived from the payment and the
    type, so a re-run publishes the same id and receivers dedupe it."""
    event_type = event_type or STATUS_EVENTS[payment.status]
    services.publisher.publish(
        DomainEvent(
            type=event_type,
            account_id=payment.account_id,
            subject=payment_subject(payment),
            id=str(
                uuid_module.uuid5(
                    EVENT_NAMESPACE, f"{payment.account_id}:{payment.transaction_id}:{event_type}"
                )
            ),
        )
    )
    recurring = RECURRING_EVENTS.get(payment.status)
    if recurring and event_type in ("payment.completed", "payment.refunded", "payment.dispute.opened"):
        publish_recurring(services, payment, recurring)


# A subscription's lifecycle as receivers know it (COMPAT: recurring-payment.*). Subscriptions
# start with their first payment and end with its refund or chargeback; there is no renewal
# billing yet, so `renewed` is not emitted.
RECURRING_EVENTS = {
    "complete": "recurring-payment.started",
    "refund": "recurring-payment.ended",
    "chargeback": "recurring-payment.ended",
}


def publish_recurring(services: Services, payment: PaymentRecord, event_type: str) -> None:
    """One event per subscription line of the payment, ids derived as for payment events."""
    for line in payment.lines:
        if not line.subscription:
            continue
        reference = f"{payment.transaction_id}-{line.package_id}"
        services.publisher.publish(
            DomainEvent(
                type=event_type,
                account_id=payment.account_id,
                subject=recurring_subject(payment, line, reference, ended=event_type.endswith(".ended")),
                id=str(uuid_module.uuid5(EVENT_NAMESPACE, f"{payment.account_id}:{reference}:{event_type}")),
            )
        )


def recurring_subject(
    payment: PaymentRecord, line: PaymentLine, reference: str, *, ended: bool
) -> dict[str, Any]:
    subject = payment_subject(payment)
    return {
        "reference": reference,
        "created_at": payment.created_at.isoformat(),
        "next_payment_at": None,
        "status": {"id": 2 if ended else 1, "description": "Cancelled" if ended else "Active"},
        "initial_payment": subject,
        "last_payment": subject,
        "fail_count": 0,
        "price": {"amount": float(line.price), "currency": payment.currency},
        "cancelled_at": payment.updated_at.isoformat() if ended else None,
        "cancel_reason": payment.status if ended else None,
        "product": {"id": line.package_id, "name": line.name},
        "custom": payment.custom,
    }


def payment_subject(payment: PaymentRecord) -> dict[str, Any]:
    """The webhook subject of a stored payment (COMPAT.md: payment subject)."""
    return subject_of(
        SubjectPayment(
            transaction_id=payment.transaction_id,
            status_id=payment.status_id,
            status=payment.status_description,
            created_at=payment.created_at,
            currency=payment.currency,
            price_paid=payment.amount,
            gateway=payment.gateway,
            email=payment.email,
            ip=payment.ip,
            country=payment.country,
            username_id=payment.username_id,
            username=payment.username,
            lines=[
                SubjectLine(
                    package_id=line.package_id,
                    name=line.name,
                    quantity=line.quantity,
                    base_price=line.base_price,
                    paid_price=line.price,
                    variables=line.variables,
                    username_id=line.username_id,
                    username=line.username,
                )
                for line in payment.lines
            ],
            coupons=payment.coupons,
            gift_cards=[(g.card_number, g.amount) for g in payment.giftcards],
            custom=payment.custom,
            creator_code=payment.creator_code,
        )
    )


__all__ = [
    "Order",
    "OrderLine",
    "advance_goal",
    "chunk_commands",
    "fulfil",
    "payment_subject",
    "publish_status",
]
