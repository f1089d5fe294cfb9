"""Invoices and credit notes as documents: one hosted page per document, in the store's brand,
printable (the player layout's print rules leave the page alone on paper), linked from the
receipt, the panel's payment page and the receipt e-mail.

A document's link is `/invoices/{account36}.{payment id}.{key}` (credit notes add
`?credit=<number>`), `key` being the payment's `document_key`: the basket's ident for a checkout
(whoever holds the receipt's link holds the invoice's), a random one for other payments. The
page reads the payment and the store side by side (one round trip) and compares the key in
constant time; anything else is the same 404.
"""

from __future__ import annotations

import hmac
import re
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from webstore import keys
from webstore.catalog import Seller, Store
from webstore.errors import NotFound
from webstore.html import PageResult
from webstore.invoices.taxes import PaymentTaxes, TaxLine, payment_taxes, refund_taxes
from webstore.repo import start_read
from webstore.repo.payments import PaymentRecord, PaymentRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront.theme import in_brand_of

PATH = "/invoices"
NOT_FOUND = "This invoice link is not valid"
_TOKEN = re.compile(r"^([0-9a-z]{1,7})\.([0-9]{1,10})\.([A-Za-z0-9_-]{8,64})$")
REVERSE_CHARGE = (
    "Reverse charge: VAT to be accounted for by the recipient (Article 196, Directive 2006/112/EC)."
)


def invoice_token(payment: PaymentRecord) -> str | None:
    """The token of the payment's documents (None: recorded before invoices existed)."""
    if payment.invoice is None or not payment.document_key:
        return None
    return f"{keys.base36(payment.account_id)}.{payment.id}.{payment.document_key}"


def invoice_path(payment: PaymentRecord, credit: int | None = None) -> str | None:
    token = invoice_token(payment)
    if token is None:
        return None
    return f"{PATH}/{token}" + (f"?credit={credit}" if credit is not None else "")


def checkout_invoice_path(account_id: int, transaction_id: str, basket_ident: str) -> str:
    """The invoice of a checkout's payment, from what the receipt knows (no read)."""
    return f"{PATH}/{keys.base36(account_id)}.{keys.payment_id_of(transaction_id)}.{basket_ident}"


def open_token(token: str) -> tuple[int, int, str]:
    """(account id, payment id, key) of a well-formed token; NotFound otherwise (read nothing)."""
    match = _TOKEN.match(token or "")
    if not match:
        raise NotFound(NOT_FOUND)
    account_id, payment_id = int(match.group(1), 36), int(match.group(2))
    if not (1 <= account_id <= keys.INT32_MAX and 1 <= payment_id <= keys.INT32_MAX):
        raise NotFound(NOT_FOUND)
    return account_id, payment_id, match.group(3)


@dataclass(frozen=True)
class RateRow:
    rate: Decimal
    net: Decimal
    tax: Decimal


@dataclass(frozen=True)
class DocumentView:
    """One invoice or credit note, as printed."""

    kind: str  # "invoice" | "credit"
    title: str  # "Invoice" | "Credit note"
    number: str
    issued: datetime
    store_name: str
    seller: Seller
    buyer: str
    email: str
    country: str
    vat_id: str
    reverse_charge: bool
    currency: str
    transaction_id: str
    lines: list[TaxLine]  # an invoice's lines (a credit note shows its amounts per rate)
    rates: list[RateRow]
    net: Decimal
    tax: Decimal
    gross: Decimal
    inclusive: bool
    corrects: str = ""  # a credit note: the invoice it corrects
    vat_id_status: str = ""  # as checked at checkout: valid | invalid | unverified
    paid: Decimal = Decimal(0)  # an invoice: what the buyer paid (gift cards are payments)
    credit_links: tuple[tuple[str, str], ...] = ()  # an invoice: its credit notes (number, link)


def document_view(payment: PaymentRecord, store: Store, credit: int | None = None) -> DocumentView:
    """The invoice of `payment`, or its credit note numbered `credit` (NotFound otherwise)."""
    if payment.invoice is None:
        raise NotFound("This payment has no invoice")
    taxes: PaymentTaxes = payment_taxes(payment, store.tax)
    common = {
        "store_name": store.name,
        "seller": store.seller,
        "buyer": payment.username,
        "email": payment.email,
        "country": taxes.country,
        "vat_id": taxes.vat_id,
        "vat_id_status": taxes.vat_id_status,
        "reverse_charge": taxes.reverse_charge,
        "currency": payment.currency,
        "transaction_id": payment.transaction_id,
        "inclusive": taxes.inclusive,
    }
    if credit is None:
        links = tuple(
            (r.credit_note.credit_label, invoice_path(payment, r.credit_note.number) or "")
            for r in payment.refunds
        )
        return DocumentView(
            kind="invoice",
            title="Invoice",
            number=payment.invoice.invoice_label,
            issued=payment.created_at,
            lines=taxes.lines,
            rates=[RateRow(rate, net, tax) for rate, (net, tax) in sorted(taxes.by_rate().items())],
            net=taxes.net,
            tax=taxes.tax,
            gross=taxes.gross,
            paid=payment.amount,
            credit_links=links,
            **common,  # type: ignore[arg-type]
        )
    for index, refund in enumerate(payment.refunds):
        if refund.credit_note.number == credit:
            given = refund_taxes(taxes, payment, index)
            return DocumentView(
                kind="credit",
                title="Credit note",
                number=refund.credit_note.credit_label,
                issued=refund.at,
                lines=[],
                rates=[RateRow(rate, -net, -tax) for rate, (net, tax) in sorted(given.by_rate.items())],
                net=-given.net,
                tax=-given.tax,
                gross=-given.gross,
                corrects=payment.invoice.invoice_label,
                **common,  # type: ignore[arg-type]
            )
    raise NotFound(NOT_FOUND)


def document_file(payment: PaymentRecord, store: Store, credit: int | None = None) -> tuple[str, str]:
    """The invoice (or credit note `credit`) as a file of its own: (file name, HTML), the hosted
    page's document with its styles inline (it opens and prints offline); NotFound without one."""
    from webstore.checkout.pages import branded  # the hosted pages' frame

    view = document_view(payment, store, credit)
    html = branded(
        store, "hosted/invoice.html", f"{view.title} {view.number}", width="medium", doc=view,
        reverse_charge=REVERSE_CHARGE,
    )  # fmt: skip
    name = "".join(c if c.isalnum() or c in "-_" else "-" for c in f"{view.title} {view.number}")
    return f"{name}.html", str(html)


def document_page(services: Services, token: str, credit: int | None) -> PageResult:
    """The hosted page of an invoice or credit note (one round trip: payment and store)."""
    from webstore.checkout.pages import branded  # the hosted pages' frame

    account_id, payment_id, key = open_token(token)
    store_read = start_read(StoreRepository(services.table).store, account_id)
    payment = PaymentRepository(services.table).get(account_id, payment_id)
    try:
        store = store_read.result()
    except NotFound as error:
        raise NotFound(NOT_FOUND) from error
    in_brand_of(store)
    if payment is None or not payment.document_key or not hmac.compare_digest(payment.document_key, key):
        raise NotFound(NOT_FOUND)
    view = document_view(payment, store, credit)
    return PageResult(
        html=branded(
            store,
            "hosted/invoice.html",
            f"{view.title} {view.number}",
            width="medium",
            doc=view,
            reverse_charge=REVERSE_CHARGE,
        )
    )
