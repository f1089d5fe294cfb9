"""The dashboard's daily aggregates: one item per store and UTC day, kept by the transactions
that record payments and change their status (docs/data-model.md, "Dashboard aggregates").

Contract: PK `ACCOUNT#{a}`, SK `keys.day_stats_sk(day)`; attributes (all ADDed, so an item
exists only for days something happened):

| attribute               | what                                                         |
|-------------------------|--------------------------------------------------------------|
| `payments`              | payments recorded that day (first payments, renewals, upgrades) |
| `revenue_{CUR}`         | what they took, per currency (Decimal, the currency's units)   |
| `refunds`, `refunded_{CUR}` | payments refunded that day, and the money given back (partial refunds too) |
| `partial_refunds`       | partial refunds given that day (the payment stays complete)   |
| `chargebacks`, `charged_back_{CUR}` | payments charged back that day               |
| `chargebacks_won`, `won_back_{CUR}` | chargebacks won back that day                |
| `pc{package}`, `pr{package}_{CUR}`, `pn{package}` | per package: units sold, revenue, its name at sale |

Each write is one action of the transaction that records the payment or its change, whose own
conditions (the order record, the payment's status as read) make it happen exactly once: a
retried or resumed fulfilment, a duplicate renewal or a second refund commits nothing, so it
counts nothing. Per-package figures live in the day's item so a range is one BatchGetItem of
its days, whatever the store sells. Dynamic packages (priced per basket) count in the totals only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from decimal import Decimal
from typing import Any

from webstore import keys
from webstore.db import Item, Transaction
from webstore.domain.invoices import Refund
from webstore.domain.payment_status import PaymentStatus
from webstore.repo.payments import PaymentRecord

ENTITY = "day_stats"
_MONEY = re.compile(r"^(revenue|refunded|charged_back|won_back)_([A-Z]{3})$")
_PACKAGE_COUNT = re.compile(r"^pc([0-9]+)$")
_PACKAGE_REVENUE = re.compile(r"^pr([0-9]+)_([A-Z]{3})$")
_PACKAGE_NAME = re.compile(r"^pn([0-9]+)$")

# What a status change adds to the day it happens on: (count attribute, amount attribute prefix).
_STATUS_CHANGES: dict[tuple[PaymentStatus, PaymentStatus], tuple[str, str]] = {
    (PaymentStatus.COMPLETE, PaymentStatus.REFUND): ("refunds", "refunded"),
    (PaymentStatus.COMPLETE, PaymentStatus.CHARGEBACK): ("chargebacks", "charged_back"),
    (PaymentStatus.CHARGEBACK, PaymentStatus.COMPLETE): ("chargebacks_won", "won_back"),
}


def utc_day(moment: datetime) -> date:
    return moment.astimezone(UTC).date()


@dataclass
class PackageDay:
    """One package's sales on one day (`revenue` per currency)."""

    name: str = ""
    count: int = 0
    revenue: dict[str, Decimal] = field(default_factory=dict)


@dataclass
class DayFigures:
    """One day's figures as stored (zero for a day without an item)."""

    day: date
    payments: int = 0
    refunds: int = 0
    chargebacks: int = 0
    chargebacks_won: int = 0
    revenue: dict[str, Decimal] = field(default_factory=dict)
    refunded: dict[str, Decimal] = field(default_factory=dict)
    charged_back: dict[str, Decimal] = field(default_factory=dict)
    won_back: dict[str, Decimal] = field(default_factory=dict)
    packages: dict[int, PackageDay] = field(default_factory=dict)


def day_key(account_id: int, day: date) -> dict[str, str]:
    return keys.key(keys.account_pk(account_id), keys.day_stats_sk(day))


def figures_of(day: date, item: Mapping[str, Any] | None) -> DayFigures:
    """A day item's figures (an absent item: an empty day)."""
    figures = DayFigures(day)
    if item is None:
        return figures
    for counter in ("payments", "refunds", "chargebacks", "chargebacks_won"):
        setattr(figures, counter, int(item.get(counter, 0)))
    for name, value in item.items():
        if match := _MONEY.match(name):
            getattr(figures, match.group(1))[match.group(2)] = Decimal(str(value))
        elif match := _PACKAGE_COUNT.match(name):
            figures.packages.setdefault(int(match.group(1)), PackageDay()).count = int(value)
        elif match := _PACKAGE_REVENUE.match(name):
            package = figures.packages.setdefault(int(match.group(1)), PackageDay())
            package.revenue[match.group(2)] = Decimal(str(value))
        elif match := _PACKAGE_NAME.match(name):
            figures.packages.setdefault(int(match.group(1)), PackageDay()).name = str(value)
    return figures


def payment_counters(payment: PaymentRecord) -> tuple[dict[str, int | Decimal], dict[str, str]]:
    """What one payment ADDs to its day (counters) and the package names it SETs."""
    currency = payment.currency
    adds: dict[str, int | Decimal] = {"payments": 1, f"revenue_{currency}": payment.amount}
    names: dict[str, str] = {}
    for line in payment.lines:
        if line.dynamic:
            continue
        count, revenue = f"pc{line.package_id}", f"pr{line.package_id}_{currency}"
        adds[count] = int(adds.get(count, 0)) + line.quantity
        adds[revenue] = Decimal(adds.get(revenue, 0)) + line.price
        names[f"pn{line.package_id}"] = line.name
    return adds, names


def status_change_counters(before: PaymentRecord, after: PaymentRecord) -> dict[str, int | Decimal]:
    """What a payment's status change ADDs to the day it happens on (nothing for an owner change)."""
    change = _STATUS_CHANGES.get((before.status, after.status))
    if change is None:
        return {}
    count, amount = change
    # a refund gives back what partial refunds left (they counted on their own days)
    money = before.refundable_amount if after.status is PaymentStatus.REFUND else before.amount
    return {count: 1, f"{amount}_{before.currency}": money}


class DailyStatsRepository:
    """Writes are transaction actions (the payment's, the change's); reads are by key."""

    @staticmethod
    def add_payment(tx: Transaction, payment: PaymentRecord) -> None:
        """Count a new payment on the day it was made."""
        adds, names = payment_counters(payment)
        _add_counters(tx, payment.account_id, utc_day(payment.created_at), adds, names)

    @staticmethod
    def add_status_change(
        tx: Transaction, before: PaymentRecord, after: PaymentRecord, now: datetime
    ) -> None:
        """Count a refund, chargeback or chargeback won back on the day it happens (`now`)."""
        adds = status_change_counters(before, after)
        if adds:
            _add_counters(tx, before.account_id, utc_day(now), adds, {})

    @staticmethod
    def add_partial_refund(tx: Transaction, payment: PaymentRecord, refund: Refund) -> None:
        """Count money given back on a payment that stays complete, on the day it happens: in
        `refunded_{CUR}` (the day's refunds count payments refunded in full only)."""
        adds: dict[str, int | Decimal] = {"partial_refunds": 1, f"refunded_{payment.currency}": refund.amount}
        _add_counters(tx, payment.account_id, utc_day(refund.at), adds, {})

    @staticmethod
    def day_item(account_id: int, day: date, payments: Iterable[PaymentRecord]) -> Item:
        """The item recording `payments` (all of `day`, complete) one by one would leave: for
        writing days in bulk (a backfill from stored payments, the benchmark's seed)."""
        sums: dict[str, int | Decimal] = {}
        names: dict[str, str] = {}
        for payment in payments:
            adds, package_names = payment_counters(payment)
            for name, amount in adds.items():
                sums[name] = sums.get(name, 0) + amount
            names.update(package_names)
        return {**day_key(account_id, day), "entity": ENTITY, "day": day.isoformat(), **sums, **names}

    @staticmethod
    def keys_of(account_id: int, days: list[date]) -> list[dict[str, str]]:
        return [day_key(account_id, day) for day in days]

    @staticmethod
    def figures(account_id: int, days: list[date], found: Mapping[tuple[str, str], Item]) -> list[DayFigures]:
        """The figures of `days` from a batch read that included `keys_of(account_id, days)`."""
        pk = keys.account_pk(account_id)
        return [figures_of(day, found.get((pk, keys.day_stats_sk(day)))) for day in days]


def _add_counters(
    tx: Transaction, account_id: int, day: date, adds: Mapping[str, int | Decimal], sets: Mapping[str, str]
) -> None:
    """One UpdateItem action: ADD `adds`, SET `sets`. Placeholders are numbered (`#7`, `:7`) and
    unspaced so that a payment of MAX_LINES packages stays well inside DynamoDB's 4 KB
    expression limit (tests/unit/admin/test_dashboard.py)."""
    names: dict[str, str] = {}
    values: dict[str, Any] = {}
    added, assigned = [], []
    for name, amount in adds.items():
        placeholder = str(len(names))
        names["#" + placeholder], values[":" + placeholder] = name, amount
        added.append(f"#{placeholder} :{placeholder}")
    for name, value in {"entity": ENTITY, "day": day.isoformat(), **sets}.items():
        placeholder = str(len(names))
        names["#" + placeholder], values[":" + placeholder] = name, value
        assigned.append(f"#{placeholder}=:{placeholder}")
    tx.update(
        day_key(account_id, day),
        "ADD " + ",".join(added) + " SET " + ",".join(assigned),
        names=names,
        values=values,
    )
