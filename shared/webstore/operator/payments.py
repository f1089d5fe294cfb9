"""Payments as admin tools see them: lists, one payment, manual payments, status changes, notes."""

from __future__ import annotations

import math
import uuid
from decimal import Decimal
from typing import Annotated

from pydantic import BaseModel, Field

from webstore import keys
from webstore.catalog import Package
from webstore.checkout.tax_details import check_country, manual_payment_tax
from webstore.domain.gateways import MANUAL, gateway_id
from webstore.errors import Invalid, NotFound
from webstore.identity.identify import identify_now
from webstore.identity.steam import STEAM64
from webstore.money import MINOR_UNITS, round_money, symbol
from webstore.operator import schemas
from webstore.operator.packages import package_id
from webstore.operator.queue_views import plugin_uuid
from webstore.payments import changes
from webstore.payments.order import MAX_LINES, Order, OrderLine
from webstore.payments.planning import split_price
from webstore.payments.recording import fulfil
from webstore.repo import start_read
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.usernames import check_username
from webstore.validation import COMMAND_MAP, MONEY_INPUT

MAX_LIMIT = 100
PER_PAGE = 25


# --- views ----------------------------------------------------------------------------------------


def payment_view(payment: PaymentRecord) -> schemas.Payment:
    return schemas.Payment(
        id=payment.id,
        txn_id=payment.transaction_id,
        amount=str(round_money(payment.amount, payment.currency)),
        date=payment.created_at.strftime("%Y-%m-%dT%H:%M:%S%z"),
        currency=schemas.Currency(iso_4217=payment.currency, symbol=symbol(payment.currency)),
        gateway=schemas.Gateway(id=gateway_id(payment.gateway), name=payment.gateway),
        status=payment.status_description,
        email=payment.email,
        player=schemas.PaymentPlayer(
            id=payment.username_id, name=payment.username, uuid=plugin_uuid(payment.uuid)
        ),
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
    the payment sequence: a GetItem of the counter, then one Query, whatever N is. Page 1 is the
    latest 25 whatever the count, so its Query goes beside the GetItem (one round trip)."""
    if page < 1:
        raise Invalid("page must be at least 1", field="page")
    repo = PaymentRepository(services.table)
    latest = start_read(repo.latest, account_id, PER_PAGE) if page == 1 else None
    total = repo.payment_count(account_id)
    last_page = max(1, math.ceil(total / PER_PAGE))
    highest = total - PER_PAGE * (page - 1)
    lowest = max(1, highest - PER_PAGE + 1)
    if latest is not None:
        found = latest.result()
    else:
        found = repo.id_range(account_id, lowest, highest) if highest >= 1 else []
    base = f"{services.settings.operator_url}/payments?paged=1&page="
    return schemas.PaymentPage(
        total=total,
        per_page=PER_PAGE,
        current_page=page,
        last_page=last_page,
        next_page_url=f"{base}{page + 1}" if page < last_page else None,
        prev_page_url=f"{base}{page - 1}" if 1 < page <= last_page + 1 else None,
        # Integers even for an empty page: CS reads them as non-nullable ints.
        from_=(PER_PAGE * (page - 1) + 1) if found else 0,
        to=(PER_PAGE * (page - 1) + len(found)) if found else 0,
        data=[payment_view(p) for p in found],
    )


def get_payment(services: Services, account_id: int, transaction_id: str) -> schemas.Payment:
    return payment_view(PaymentRepository(services.table).by_transaction(account_id, transaction_id))


def _package(services: Services, account_id: int, package_ref: str) -> Package:
    package = StoreRepository(services.table).package(account_id, package_id(package_ref))
    if package is None:
        raise NotFound("Package not found")
    return package


def payment_fields(services: Services, account_id: int, package_ref: str) -> list[schemas.PaymentField]:
    """What a manual payment for this package must carry in `options`: its variables."""
    package = _package(services, account_id, package_ref)
    fields = []
    for name in package.variables:
        options = package.variable_options.get(name)
        choices = f": one of {', '.join(o.value for o in options)}" if options else ""
        fields.append(
            schemas.PaymentField(
                name=name,
                type="dropdown" if options else "text",
                rules="required",
                description=f"Value of {{{name}}} in the package's commands{choices}",
            )
        )
    return fields


# --- manual payments ------------------------------------------------------------------------


class ManualPackage(BaseModel):
    id: int = Field(ge=1, le=keys.INT32_MAX)
    options: Annotated[dict[str, str | int | float], COMMAND_MAP] = Field(default_factory=dict)


class ManualPayment(BaseModel):
    """POST /payments: a payment taken outside the platform (SPEC: ign, packages, price, note)."""

    ign: str = Field(min_length=1, max_length=64)
    packages: list[ManualPackage] = Field(min_length=1, max_length=MAX_LINES)
    price: Annotated[Decimal, MONEY_INPUT] = Field(
        ge=0, le=Decimal("1000000"), max_digits=14, decimal_places=4
    )
    note: str = Field(default="", max_length=1000)
    email: str = Field(default="", max_length=254)
    # The buyer's country (ISO 3166-1 alpha-2) the tax is for; absent: the store's own country
    # (docs/tax-model.md, "Manual payments").
    country: str = Field(default="", max_length=2)


def create_manual_payment(
    services: Services, account_id: int, body: ManualPayment, idempotency_key: str | None
) -> schemas.Payment:
    if not STEAM64.match(body.ign):  # a Steam64 id is a player only in a Steam store: identify says
        check_username(body.ign, "ign")
    view = StoreRepository(services.table).operator_view(account_id)
    store = view.store
    packages = []
    for index, wanted in enumerate(body.packages):
        package = view.package(wanted.id)
        if package is None:
            raise Invalid(f"Package {wanted.id} does not exist", field=f"packages.{index}.id")
        packages.append(package)
    if round_money(body.price, store.currency) != body.price:  # never round money silently
        places = MINOR_UNITS.get(store.currency.upper(), 2)
        raise Invalid(f"price has more than {places} decimal places ({store.currency})", field="price")
    prices = split_price(body.price, [p.price for p in packages], store.currency)
    country = check_country(body.country, "country") if body.country else ""
    tax = manual_payment_tax(services, store, prices, country)
    order = Order(
        tax=tax,
        country=tax.country if tax is not None else country,
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
        gateway=MANUAL.name,
        note=body.note,
    )
    buyer = identify_now(services, store, body.ign, field="ign", refresh=False)
    return payment_view(fulfil(services, order, view, buyer))


# --- status changes, reassignment, notes ---------------------------------------------------------


def update_payment(
    services: Services, account_id: int, transaction_id: str, status: str | None, username: str | None
) -> schemas.Payment:
    """Change status (refund/chargeback queue their package commands once) and/or reassign the
    payment to another player."""
    return payment_view(changes.change_payment(services, account_id, transaction_id, status, username))


def add_note(services: Services, account_id: int, transaction_id: str, note: str) -> schemas.Payment:
    return payment_view(changes.add_note(services, account_id, transaction_id, note))


__all__ = [
    "ManualPayment",
    "add_note",
    "create_manual_payment",
    "latest_payments",
    "payment_page",
    "split_price",
]
