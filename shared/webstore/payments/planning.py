"""Pure planning of a payment: its lines, the commands each trigger queues, the tiers it sets,
goal progress, store stats, player counters and how commands split into transactions.

No table here: recording (`payments.recording`) reads, calls these, and writes what they return.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from decimal import ROUND_DOWN, Decimal

from webstore import keys, record_size
from webstore.calendar import period_end
from webstore.catalog import CommandTrigger, CommunityGoal, Coupon, GoalStatus, Package, PackageType
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import Invalid
from webstore.money import ZERO, quantum, round_money
from webstore.payments.order import Order, OrderLine
from webstore.players import RECENT_PAYMENTS_KEPT, RecentPayment, StoreStats, Tier, TierStatus
from webstore.repo.payments import PaymentLine, PaymentNote, PaymentRecord
from webstore.repo.queue import QueuedCommand, enqueue_cost
from webstore.repo.store import StoreView
from webstore.repo.users import User

RESERVED_PLACEHOLDERS = {"id", "name", "username"}  # the plugin substitutes these
_PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_]+)\}")
MAX_TRANSACTION_ACTIONS = 100  # DynamoDB's TransactWriteItems limit


# --- lines -----------------------------------------------------------------------------------------


def payment_lines(
    order: Order, view: StoreView, buyer: User, recipients: Mapping[str, User]
) -> list[PaymentLine]:
    """The order's lines as the payment records them (422 naming the line when the catalog
    refuses one). `recipients` holds the buyer and every gift target by lower-case name."""
    lines = []
    for index, line in enumerate(order.lines):
        receiver = recipients[(line.gift_username or buyer.username).lower()]
        if line.dynamic:
            lines.append(dynamic_line(line, receiver, index))
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
        given = {k: v for k, v in line.variables.items() if k in package.variables}
        variables = {k: package.variable_value(k, v) for k, v in given.items()}
        for name, value in variables.items():
            if value is None:
                choices = ", ".join(o.value for o in package.variable_options[name])
                message = f"Package {package.id}: {name} must be one of {choices}"
                raise Invalid(message, field=f"packages.{index}.options")
        lines.append(
            PaymentLine(
                package_id=package.id,
                category_id=package.category_id,
                subscription=package.type is PackageType.SUBSCRIPTION,
                name=package.name,
                quantity=line.quantity,
                base_price=package.price,
                price=line.paid_price,
                variables={k: v for k, v in variables.items() if v is not None},
                username_id=receiver.id,
                username=receiver.username,
                uuid=receiver.uuid,
            )
        )
    return lines


def dynamic_line(line: OrderLine, receiver: User, index: int) -> PaymentLine:
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


def split_price(total: Decimal, list_prices: list[Decimal], currency: str) -> list[Decimal]:
    """Share a payment's total among its lines in proportion to list price (the last line takes
    the rounding remainder), so per-line paid prices add up to what was paid."""
    weights = list_prices if sum(list_prices) > 0 else [Decimal(1)] * len(list_prices)
    whole = sum(weights)
    step = quantum(currency)
    shares = [(total * w / whole).quantize(step, rounding=ROUND_DOWN) for w in weights[:-1]]
    return [*shares, total - sum(shares, Decimal(0))]


# --- commands --------------------------------------------------------------------------------------


def commands_for(
    lines: Sequence[PaymentLine], view: StoreView, trigger: CommandTrigger, now: datetime
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
                        command=fill_variables(command.command, line.variables),
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


# --- a refund's withdrawal ------------------------------------------------------------------------

# The plans whose commands give the player something (what a refund or chargeback undoes).
_GRANTING = (CommandTrigger.PURCHASE.value, CommandTrigger.RENEWAL.value)


def granted(payment: PaymentRecord) -> list[QueuedCommand]:
    """Every command the payment queued to give something: its purchase or renewal plan and the
    panel's resends of it (`resend-{id}`), the chunks not yet queued included."""
    return [
        command
        for trigger, chunks in payment.plans.items()
        if trigger in _GRANTING or trigger.startswith("resend-")
        for chunk in chunks
        for command in chunk
    ]


def _group(command: QueuedCommand) -> tuple[int | None, int]:
    return command.package_id, command.server_id


def to_withdraw(
    grants: Sequence[QueuedCommand], undelivered: Sequence[QueuedCommand], room: int
) -> list[QueuedCommand]:
    """The undelivered grants a refund takes out of the queues: whole (package, server) groups,
    as many as `room` transaction actions hold (a group left over stays queued, as if delivered)."""
    groups: dict[tuple[int | None, int], list[QueuedCommand]] = {}
    for command in undelivered:
        groups.setdefault(_group(command), []).append(command)
    chosen: list[QueuedCommand] = []
    for group in groups.values():
        if enqueue_cost([*chosen, *group]) <= room:
            chosen += group
    return chosen


def undoing(
    commands: Sequence[QueuedCommand], payment: PaymentRecord, withdrawn: Sequence[QueuedCommand]
) -> list[QueuedCommand]:
    """The refund, chargeback or expiry `commands` still needed once `withdrawn` is out: those of
    a (package, server) some grant of which may have reached the server (one not withdrawn). Only
    a first purchase decides this: what a renewal's refund undoes (the rank) came from the
    purchase before it, so a renewal's commands are all kept."""
    if CommandTrigger.PURCHASE.value not in payment.plans:
        return list(commands)
    grants = granted(payment)
    gone = {c.id for c in withdrawn}
    never_given = {_group(c) for c in withdrawn} - {_group(c) for c in grants if c.id not in gone}
    return [c for c in commands if _group(c) not in never_given]


def fill_variables(text: str, variables: Mapping[str, str]) -> str:
    """Package variables are ours to fill; `{id}`, `{name}`, `{username}` stay for the plugin."""

    def replace(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in RESERVED_PLACEHOLDERS or name not in variables:
            return match.group(0)
        return variables[name]

    return _PLACEHOLDER.sub(replace, text)


def with_ids(commands: Sequence[QueuedCommand], ids: Sequence[int], payment_id: int) -> list[QueuedCommand]:
    return [
        c.model_copy(update={"id": i, "payment_id": payment_id}) for c, i in zip(commands, ids, strict=True)
    ]


def chunk_commands(commands: Sequence[QueuedCommand], first_capacity: int) -> list[list[QueuedCommand]]:
    """Split commands into transactions: the first shares one with the payment (room:
    `first_capacity` actions), later ones hold 99 (one action advances `chunks_done`)."""
    chunks: list[list[QueuedCommand]] = []
    current: list[QueuedCommand] = []
    capacity = first_capacity
    for command in commands:
        if enqueue_cost([*current, command]) > capacity:
            chunks.append(current)  # empty when the payment's transaction had no room left
            current, capacity = [], MAX_TRANSACTION_ACTIONS - 1
        current.append(command)
    if current:
        chunks.append(current)
    return chunks


def plan_commands(
    payment: PaymentRecord, trigger: str, commands: Sequence[QueuedCommand], room: int
) -> list[QueuedCommand]:
    """Record the command plan of `trigger` on `payment` (chunks; the first marked done) and
    return the first chunk, which goes in the transaction that has `room` actions left."""
    chunks = chunk_commands(commands, room)
    first = chunks[:1]
    payment.plans[trigger] = chunks
    payment.chunks_done[trigger] = len(first)
    return first[0] if first else []


# --- the payment -----------------------------------------------------------------------------------


def order_coupons(codes: Sequence[str], found: Mapping[str, Coupon], buyer: User) -> list[Coupon]:
    """The coupons an order names, each once (422 for an unknown one or another player's)."""
    coupons = []
    for code in dict.fromkeys(c.upper() for c in codes):
        coupon = found.get(code)
        if coupon is None:
            raise Invalid(f"Coupon {code} does not exist", field="coupons")
        if coupon.username and coupon.username.lower() != buyer.username.lower():
            raise Invalid(f"Coupon {code} is for another player", field="coupons")
        coupons.append(coupon)
    return coupons


def new_payment(
    order: Order,
    currency: str,
    buyer: User,
    lines: list[PaymentLine],
    coupons: Sequence[Coupon],
    payment_id: int,
    now: datetime,
) -> PaymentRecord:
    """The payment an order makes, under `payment_id` (taken by `payments.core.take_payment_id`
    in the transaction that writes it)."""
    return PaymentRecord(
        id=payment_id,
        transaction_id=keys.new_transaction_id(payment_id),
        account_id=order.account_id,
        amount=round_money(order.price_paid, currency),
        currency=currency,
        gateway=order.gateway,
        email=order.email,
        ip=order.ip,
        country=order.country,
        username_id=buyer.id,
        username=buyer.username,
        uuid=buyer.uuid,
        lines=lines,
        coupons=[c.code for c in coupons],
        giftcards=order.giftcards,
        creator_code=order.creator_code,
        basket_ident=order.basket_ident,
        checkout_attempt=order.checkout_attempt,
        custom=order.custom,
        tax=order.tax,
        notes=[PaymentNote(created_at=now, note=order.note)] if order.note else [],
        idempotency_key=order.idempotency_key,
        created_at=now,
        updated_at=now,
    )


def check_user_limits(lines: Sequence[PaymentLine], view: StoreView) -> None:
    """`user_limit` per receiving player across the whole order: own lines, gifts to oneself
    and a package listed twice all count (the purchase counters then hold it across orders)."""
    for counts in purchase_counts(lines).values():
        for package_id, count in counts.items():
            package = view.package(package_id)
            if package is not None and package.user_limit and count > package.user_limit:
                raise Invalid(
                    f"Package {package_id} may be bought {package.user_limit} time(s) per player;"
                    f" this order gives one player {count}",
                    field="packages",
                )


def check_recordable(payment: PaymentRecord) -> None:
    """Refuse (422) a payment whose record would not fit in its item with room to spare."""
    size = len(payment.model_dump_json().encode())
    if size > record_size.RECORD_LIMIT:
        raise Invalid(
            f"The order is too large to record ({size} bytes of payment and commands; at most"
            f" {record_size.RECORD_LIMIT}): fewer packages or quantities per payment",
            field="packages",
        )


def purchase_counts(lines: Sequence[PaymentLine]) -> dict[int, dict[int, int]]:
    """Units bought per receiving player and package (dynamic lines count toward nothing)."""
    by_player: dict[int, dict[int, int]] = {}
    for line in lines:
        if line.dynamic:
            continue
        counts = by_player.setdefault(line.username_id, {})
        counts[line.package_id] = counts.get(line.package_id, 0) + line.quantity
    return by_player


# --- tiers ---------------------------------------------------------------------------------------


def tier_lines(lines: Sequence[PaymentLine], view: StoreView) -> list[PaymentLine]:
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


def new_tier(
    line: PaymentLine, package: Package, tier_id: int, payment: PaymentRecord, now: datetime
) -> Tier:
    """The player's tier in the line's category after this payment (replacing any before)."""
    return Tier(
        id=tier_id,
        username_id=line.username_id,
        category_id=line.category_id,
        package_id=line.package_id,
        active=True,
        status_id=TierStatus.ACTIVE,
        recurring_payment_reference=payment.transaction_id,
        created_at=now,
        next_payment_date=next_payment_date(now, package),
    )


def next_payment_date(start: datetime, package: Package) -> datetime | None:
    """When a subscription bought at `start` is next due (None: the package has no period)."""
    return period_end(start, package.expiry_length, package.expiry_period)


# --- goals and stats ---------------------------------------------------------------------------------


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


def month_of(moment: datetime) -> str:
    return moment.strftime("%Y-%m")


def stats_after(
    stats: StoreStats, payment: PaymentRecord, buyer: User, spent: Decimal, now: datetime
) -> StoreStats:
    """The store stats with one more payment: this month's revenue, the month's top customer
    (`spent`: the buyer's spend this month, this payment included) and the recent payments
    (newest first, at most RECENT_PAYMENTS_KEPT)."""
    updated = stats.model_copy(deep=True)
    month = month_of(now)
    if updated.month != month:
        updated.month, updated.month_revenue, updated.top_customer = month, ZERO, None
    updated.month_revenue += payment.amount
    top_total = Decimal(str((updated.top_customer or {}).get("total", 0)))
    if updated.top_customer is None or spent > top_total:
        updated.top_customer = {
            "username": buyer.username,
            "username_id": buyer.id,
            "platform_id": buyer.uuid.replace("-", ""),
            "total": spent,
        }
    latest = RecentPayment(
        username=buyer.username,
        platform_id=buyer.uuid.replace("-", ""),
        package=", ".join(line.name for line in payment.lines),
        amount=payment.amount,
        currency=payment.currency,
        date=now,
    )
    updated.recent_payments = with_recent(updated.recent_payments, latest)
    return updated


def with_recent(recent: Sequence[RecentPayment], latest: RecentPayment) -> list[RecentPayment]:
    """`latest` first, then the ones before it, capped at RECENT_PAYMENTS_KEPT."""
    return [latest, *recent][:RECENT_PAYMENTS_KEPT]


# --- status changes ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CounterChange:
    """What to ADD to one player's counters; `new_owner` when the player records must be made."""

    username_id: int
    counters: dict[str, int | Decimal]
    new_owner: bool = False


def counter_changes(before: PaymentRecord, after: PaymentRecord) -> list[CounterChange]:
    """Keep the players' payment counts, totals and chargebacks in step with a status or owner
    change: a complete payment counts toward its owner's total, a chargeback toward their
    chargebacks."""
    total = f"total_{before.currency}"
    old_weight, new_weight = int(before.status.counts_as_paid), int(after.status.counts_as_paid)
    was_chargeback = int(before.status is PaymentStatus.CHARGEBACK)
    is_chargeback = int(after.status is PaymentStatus.CHARGEBACK)
    if before.username_id == after.username_id:
        if old_weight == new_weight and was_chargeback == is_chargeback:
            return []
        return [
            CounterChange(
                before.username_id,
                {
                    total: before.amount * (new_weight - old_weight),
                    "chargebacks": is_chargeback - was_chargeback,
                },
            )
        ]
    return [
        CounterChange(
            before.username_id,
            {"payments": -1, total: -before.amount * old_weight, "chargebacks": -was_chargeback},
        ),
        CounterChange(
            after.username_id,
            {"payments": 1, total: after.amount * new_weight, "chargebacks": is_chargeback},
            new_owner=True,
        ),
    ]


def reassigned(payment: PaymentRecord, owner: User) -> PaymentRecord:
    """The payment moved to `owner`: the buyer and the lines the buyer received."""
    updated = payment.model_copy(deep=True)
    for line in updated.lines:
        if line.username_id == payment.username_id:
            line.username_id, line.username, line.uuid = owner.id, owner.username, owner.uuid
    updated.username_id, updated.username, updated.uuid = owner.id, owner.username, owner.uuid
    return updated
