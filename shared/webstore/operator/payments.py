"""Payments as admin tools see them: lists, one payment, manual payments, status changes, notes."""

from __future__ import annotations

import math
import uuid
from decimal import ROUND_DOWN, Decimal
from typing import Annotated, Any

from pydantic import BaseModel, Field

from webstore import keys
from webstore.catalog import CommandTrigger, Package
from webstore.db import ConditionFailed, TransactAction, TransactionCancelled, from_item
from webstore.errors import Conflict, Invalid, NotFound
from webstore.money import quantum, round_money, symbol
from webstore.operator import fulfilment, schemas
from webstore.operator.fulfilment import Order, OrderLine, commands_for, player_actions, publish_status
from webstore.repo.account import AccountRepository
from webstore.repo.payments import STATUS_IDS, PaymentLine, PaymentRecord, PaymentRepository
from webstore.repo.queue import QueueRepository
from webstore.repo.store import StoreRepository
from webstore.repo.users import User, UserRepository, check_username
from webstore.services import Services
from webstore.validation import COMMAND_MAP, MONEY_INPUT

MAX_LIMIT = 100
PER_PAGE = 25
GATEWAY_IDS = {"Manual": 1, "Checkout": 2}
# Allowed status changes (docs/operator.md). Refund is final; a chargeback can be won back.
TRANSITIONS = {
    ("complete", "refund"): CommandTrigger.REFUND,
    ("complete", "chargeback"): CommandTrigger.CHARGEBACK,
    ("chargeback", "complete"): None,
}
EVENTS = {
    "refund": "payment.refunded",
    "chargeback": "payment.dispute.opened",
    "complete": "payment.dispute.won",
}


# --- views ----------------------------------------------------------------------------------------


def payment_view(payment: PaymentRecord) -> schemas.Payment:
    return schemas.Payment(
        id=payment.id,
        txn_id=payment.transaction_id,
        amount=str(round_money(payment.amount, payment.currency)),
        date=payment.created_at.strftime("%Y-%m-%dT%H:%M:%S%z"),
        currency=schemas.Currency(iso_4217=payment.currency, symbol=symbol(payment.currency)),
        gateway=schemas.Gateway(id=GATEWAY_IDS.get(payment.gateway, 0), name=payment.gateway),
        status=payment.status_description,
        email=payment.email,
        player=schemas.PaymentPlayer(id=payment.username_id, name=payment.username, uuid=payment.uuid),
        packages=[schemas.PaymentPackage(id=line.package_id, name=line.name) for line in payment.lines],
        notes=[
            schemas.PaymentNote(created_at=n.created_at.strftime("%Y-%m-%d %H:%M:%S"), note=n.note)
            for n in payment.notes
        ],
        creator_code=payment.creator_code,
    )


# --- reads ------------------------------------------------------------------------------------------


def latest_payments(services: Services, account_id: int, limit: int) -> list[schemas.Payment]:
    """Latest first; one descending key-range Query with Limit."""
    if limit < 1:
        raise Invalid("limit must be at least 1", field="limit")
    found = PaymentRepository(services.table).latest(account_id, min(limit, MAX_LIMIT))
    return [payment_view(p) for p in found]


def payment_page(services: Services, account_id: int, page: int) -> schemas.PaymentPage:
    """Page N of 25, latest first. Ids are dense, so page N is the id range counted down from
    the payment sequence: a GetItem of the counter + one Query, whatever N is."""
    if page < 1:
        raise Invalid("page must be at least 1", field="page")
    repo = PaymentRepository(services.table)
    total = repo.payment_count(account_id)
    last_page = max(1, math.ceil(total / PER_PAGE))
    highest = total - PER_PAGE * (page - 1)
    lowest = max(1, highest - PER_PAGE + 1)
    found = repo.id_range(account_id, lowest, highest) if highest >= 1 else []
    base = f"{services.settings.operator_url}/payments?paged=1&page="
    return schemas.PaymentPage(
        total=total,
        per_page=PER_PAGE,
        current_page=page,
        last_page=last_page,
        next_page_url=f"{base}{page + 1}" if page < last_page else None,
        prev_page_url=f"{base}{page - 1}" if 1 < page <= last_page + 1 else None,
        from_=(PER_PAGE * (page - 1) + 1) if found else None,
        to=(PER_PAGE * (page - 1) + len(found)) if found else None,
        data=[payment_view(p) for p in found],
    )


def get_payment(services: Services, account_id: int, transaction_id: str) -> schemas.Payment:
    return payment_view(PaymentRepository(services.table).by_transaction(account_id, transaction_id))


def _package(services: Services, account_id: int, package_ref: str) -> Package:
    if not package_ref.isdigit() or not 1 <= int(package_ref) <= keys.INT32_MAX:
        raise NotFound("Package not found")
    item = services.table.get(keys.key(keys.store_pk(account_id), keys.package_sk(int(package_ref))))
    if item is None:
        raise NotFound("Package not found")
    return from_item(Package, item)


def payment_fields(services: Services, account_id: int, package_ref: str) -> list[schemas.PaymentField]:
    """What a manual payment for this package must carry in `options`: its variables."""
    package = _package(services, account_id, package_ref)
    return [
        schemas.PaymentField(
            name=name,
            type="text",
            rules="required",
            description=f"Value of {{{name}}} in the package's commands",
        )
        for name in package.variables
    ]


# --- manual payments ------------------------------------------------------------------------


class ManualPackage(BaseModel):
    id: int = Field(ge=1, le=keys.INT32_MAX)
    options: Annotated[dict[str, str | int | float], COMMAND_MAP] = Field(default_factory=dict)


class ManualPayment(BaseModel):
    """POST /payments: a payment taken outside the platform (SPEC: ign, packages, price, note)."""

    ign: str = Field(min_length=1, max_length=64)
    packages: list[ManualPackage] = Field(min_length=1, max_length=fulfilment.MAX_LINES)
    price: Annotated[Decimal, MONEY_INPUT] = Field(
        ge=0, le=Decimal("1000000"), max_digits=14, decimal_places=4
    )
    note: str = Field(default="", max_length=1000)
    email: str = Field(default="", max_length=254)


def create_manual_payment(
    services: Services, account_id: int, body: ManualPayment, idempotency_key: str | None
) -> schemas.Payment:
    check_username(body.ign, "ign")
    view = StoreRepository(services.table).operator_view(account_id)
    store = view.store
    packages = []
    for index, wanted in enumerate(body.packages):
        package = view.package(wanted.id)
        if package is None:
            raise Invalid(f"Package {wanted.id} does not exist", field=f"packages.{index}.id")
        packages.append(package)
    prices = split_price(round_money(body.price, store.currency), [p.price for p in packages], store.currency)
    order = Order(
        account_id=account_id,
        idempotency_key=idempotency_key or f"manual-{uuid.uuid4().hex}",
        username=body.ign,
        email=body.email,
        lines=[
            OrderLine(package_id=p.id, paid_price=price, variables={k: str(v) for k, v in w.options.items()})
            for p, w, price in zip(packages, body.packages, prices, strict=True)
        ],
        price_paid=body.price,
        currency=store.currency,
        gateway="Manual",
        note=body.note,
    )
    return payment_view(fulfilment.fulfil(services, order, view))


def split_price(total: Decimal, list_prices: list[Decimal], currency: str) -> list[Decimal]:
    """Share a payment's total among its lines in proportion to list price (the last line takes
    the rounding remainder), so per-line paid prices add up to what was paid."""
    weights = list_prices if sum(list_prices) > 0 else [Decimal(1)] * len(list_prices)
    whole = sum(weights)
    step = quantum(currency)
    shares = [(total * w / whole).quantize(step, rounding=ROUND_DOWN) for w in weights[:-1]]
    return [*shares, total - sum(shares, Decimal(0))]


# --- status changes, reassignment, notes ---------------------------------------------------------


def update_payment(
    services: Services, account_id: int, transaction_id: str, status: str | None, username: str | None
) -> schemas.Payment:
    """Change status (refund/chargeback queue their package commands once) and/or reassign the
    payment to another player; conditional on the status and player read, so two concurrent
    changes cannot both apply."""
    if status is None and username is None:
        raise Invalid("Send status and/or username", field="status")
    if status is not None and status not in STATUS_IDS:
        raise Invalid("status is one of complete, refund, chargeback", field="status")
    repo = PaymentRepository(services.table)
    payment = repo.by_transaction(account_id, transaction_id)
    new_status = status or payment.status
    trigger = None
    if new_status != payment.status:
        if (payment.status, new_status) not in TRANSITIONS:
            raise Conflict(f"A {payment.status} payment cannot become {new_status}", field="status")
        trigger = TRANSITIONS[(payment.status, new_status)]
    new_owner = UserRepository(services.table).ensure(username) if username else None
    if new_owner and new_owner.id == payment.username_id:
        new_owner = None
    if new_status == payment.status and new_owner is None:
        return payment_view(payment)

    now = services.now()
    names: dict[str, str] = {"#status": "status"}
    values: dict[str, Any] = {
        ":status": new_status,
        ":old_status": payment.status,
        ":old_player": payment.username_id,
        ":now": now,
    }
    sets = ["#status = :status", "updated_at = :now"]
    actions: list[TransactAction] = []
    updated = payment.model_copy(deep=True)
    updated.status = new_status
    updated.updated_at = now
    first_chunk = []
    if trigger is not None and trigger.value not in payment.plans:
        view = StoreRepository(services.table).operator_view(account_id)
        planned = commands_for(payment.lines, view, trigger, now)
        if planned:
            ids = _command_ids(services, account_id, len(planned))
            planned = [
                c.model_copy(update={"id": i, "payment_id": payment.id})
                for c, i in zip(planned, ids, strict=True)
            ]
        chunks = fulfilment.chunk_commands(planned, 100 - 8)
        first_chunk = chunks[:1]
        updated.plans[trigger.value] = chunks
        updated.chunks_done[trigger.value] = len(first_chunk)
        names["#t"] = trigger.value
        sets += ["plans.#t = :plan", "chunks_done.#t = :done"]
        values[":plan"] = [[c.model_dump() for c in chunk] for chunk in chunks]
        values[":done"] = len(first_chunk)
    if new_owner is not None:
        sets += ["username_id = :uid", "username = :uname", "#uuid = :uuid", "GSI1PK = :g", "#lines = :lines"]
        names.update({"#uuid": "uuid", "#lines": "lines"})
        for line in updated.lines:
            if line.username_id == payment.username_id:
                line.username_id, line.username, line.uuid = new_owner.id, new_owner.username, new_owner.uuid
        updated.username_id, updated.username, updated.uuid = new_owner.id, new_owner.username, new_owner.uuid
        values.update(
            {
                ":uid": new_owner.id,
                ":uname": new_owner.username,
                ":uuid": new_owner.uuid,
                ":g": keys.payments_of_player(account_id, new_owner.id),
                ":lines": [line.model_dump() for line in updated.lines],
            }
        )
    actions.append(
        TransactAction.update(
            PaymentRepository.key(account_id, payment.id),
            "SET " + ", ".join(sets),
            condition="#status = :old_status AND username_id = :old_player"
            + (" AND attribute_not_exists(plans.#t)" if "#t" in names else ""),
            names=names,
            values=values,
        )
    )
    actions += _player_totals(account_id, payment, updated, now)
    for chunk in first_chunk:
        actions += QueueRepository(services.table).enqueue_actions(account_id, chunk)
    try:
        services.table.transact(actions)
    except TransactionCancelled as error:
        raise Conflict("The payment changed meanwhile; read it again and retry") from error
    if trigger is not None:
        fulfilment.run_pending_chunks(services, updated, trigger.value)
    if new_status != payment.status:
        publish_status(services, updated, EVENTS[new_status])
    return payment_view(updated)


def _command_ids(services: Services, account_id: int, count: int) -> list[int]:
    return AccountRepository(services.table).next_ids(account_id, "command", count)


def _player_totals(
    account_id: int, before: PaymentRecord, after: PaymentRecord, now: Any
) -> list[TransactAction]:
    """Keep the players' payment counts, totals and chargebacks in step with the change."""
    counted = {"complete": 1, "refund": 0, "chargeback": 0}
    pk = keys.account_pk(account_id)
    actions: list[TransactAction] = []
    old_weight = counted[before.status]
    new_weight = counted[after.status]
    was_chargeback, is_chargeback = int(before.status == "chargeback"), int(after.status == "chargeback")
    total = f"total_{before.currency}"
    if before.username_id == after.username_id:
        if old_weight != new_weight or was_chargeback != is_chargeback:
            actions.append(
                TransactAction.update(
                    keys.key(pk, keys.player_sk(before.username_id)),
                    f"ADD {total} :amount, chargebacks :cb",
                    values={
                        ":amount": before.amount * (new_weight - old_weight),
                        ":cb": is_chargeback - was_chargeback,
                    },
                )
            )
        return actions
    actions.append(
        TransactAction.update(
            keys.key(pk, keys.player_sk(before.username_id)),
            f"ADD payments :minus, {total} :amount, chargebacks :cb",
            values={":minus": -1, ":amount": -before.amount * old_weight, ":cb": -was_chargeback},
        )
    )
    owner = User(after.username_id, after.username, after.uuid or keys.player_uuid(after.username))
    counters = {"payments": 1, total: after.amount * new_weight, "chargebacks": is_chargeback}
    actions += player_actions(account_id, owner, email=after.email, now=now, counters=counters)
    return actions


# Notes live in the payment's item: a cap keeps it well inside the table's item size limit.
MAX_NOTES = 50


def add_note(services: Services, account_id: int, transaction_id: str, note: str) -> schemas.Payment:
    """Append a note: one conditional UpdateItem (the transaction id must match)."""
    note = note.strip()
    if not note:
        raise Invalid("note must not be empty", field="note")
    payment_id = keys.payment_id_of(transaction_id)
    entry = {"created_at": services.now(), "note": note}
    key = PaymentRepository.key(account_id, payment_id)
    try:
        item = services.table.update(
            key,
            "SET notes = list_append(if_not_exists(notes, :empty), :note)",
            condition="transaction_id = :txn AND (attribute_not_exists(notes) OR size(notes) < :max)",
            values={":empty": [], ":note": [entry], ":txn": transaction_id, ":max": MAX_NOTES},
            return_values="ALL_NEW",
        )
    except ConditionFailed as error:
        current = services.table.get(key, consistent=True)  # only on failure: which condition?
        if current is not None and current.get("transaction_id") == transaction_id:
            raise Invalid(f"A payment holds at most {MAX_NOTES} notes", field="note") from error
        raise NotFound("Payment not found") from error

    return payment_view(from_item(PaymentRecord, item))


__all__ = [
    "ManualPayment",
    "PaymentLine",
    "add_note",
    "create_manual_payment",
    "latest_payments",
    "payment_page",
]
