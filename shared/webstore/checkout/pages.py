"""The hosted checkout and receipt: templates/hosted/checkout.html and receipt.html, in the
store's brand (`webstore.html.player`).

A page is rendered from a view (`CheckoutView`, `ReceiptView`) that the use cases build
(`checkout.checkout`); the order is `summary.order_summary`'s rows, which add up
(templates/macros/order.html). Every value is escaped by the templates; the store's colours are
a second stylesheet and its images (logo, packages) the only external things, both allowed by
the page's own policy (`Page.policy`).

The payment part of the form is a slot (`checkout_page(payment_method=PaymentMethod(…))`):
the sandbox's card-number field by default. A processor whose element confirms the payment in
the page (Stripe's Payment Element) brings its template (templates/hosted/payment/*.html: the
form's attributes, its fields, its scripts, from `data`) and the policy directives they need;
the rest of the form (email, subscription consent, legal links, the pay button `#pay`) stays
the same for every gateway.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from decimal import Decimal
from functools import cache
from typing import Any

from webstore.basket import Basket
from webstore.catalog import Store, TaxCalculation
from webstore.checkout.summary import AmountRow, OrderSummary, RowKind, order_summary
from webstore.checkout.tax_details import asks_for_country
from webstore.html import Page
from webstore.html.player import UNBRANDED, content_security_policy, page, problem_page
from webstore.money import display
from webstore.storefront.theme import brand
from webstore.tax.countries import COUNTRIES

# The pay form redirects to the gateway or the shop's complete URL (checked when the basket was made).
FORM_TARGETS = ("http:", "https:")


@cache
def policy() -> str:
    """The checkout routes' policy (an unbranded page; a branded one brings its own)."""
    return content_security_policy(*FORM_TARGETS)


SUBSCRIPTION_CONSENT = "subscription_consent"  # the pay form's consent field (a checkbox, "yes")
HOW_TO_CANCEL = (
    "Cancel any time from the “Manage or cancel your subscription” link on your receipt. You"
    " keep what you paid for until the end of the current period and are not charged again."
)
HOW_TO_CANCEL_ON_RECEIPT = HOW_TO_CANCEL.replace("on your receipt", "on this receipt")


def money(amount: Decimal, currency: str) -> str:
    return display(amount, currency)


@dataclass(frozen=True)
class BillingForm:
    """The billing country form of a store whose tax depends on it (checkout.tax_details)."""

    url: str
    countries: list[tuple[str, str]]
    country: str = ""
    postal_code: str = ""
    vat_id: str = ""
    ask_postal_code: bool = False
    taxed: bool = False  # the basket's tax is calculated for `country`: the pay form may go on

    @classmethod
    def of(cls, basket: Basket, store: Store, url: str) -> BillingForm | None:
        if not asks_for_country(store):
            return None
        buyer = basket.buyer_tax
        return cls(
            url=url,
            countries=sorted(COUNTRIES.items(), key=lambda item: item[1]),
            country=buyer.billing_country or buyer.ip_country,
            postal_code=buyer.billing_postal_code,
            vat_id=buyer.vat_id,
            ask_postal_code=store.tax.calculation is TaxCalculation.STRIPE_TAX,
            taxed=bool(buyer.billing_country) and not basket.tax_pending(store),
        )


@dataclass(frozen=True)
class CheckoutView:
    """Everything the checkout page shows."""

    store: Store
    summary: OrderSummary
    pay_url: str
    attempt_key: str
    username: str | None = None
    email: str = ""
    error: str = ""
    error_field: str = ""  # the form field the error is about ("email"), marked invalid
    cancel_url: str = ""
    billing: BillingForm | None = None
    discord_url: str | None = None  # "Link Discord", when the store connected Discord (docs/discord.md)

    @classmethod
    def of(
        cls,
        basket: Basket,
        store: Store,
        now: datetime,
        *,
        pay_url: str,
        attempt_key: str,
        error: str = "",
        error_field: str = "",
        discord_url: str | None = None,
    ) -> CheckoutView:
        """The page of a priced basket (`Basket.reprice` as of `now`), for any gateway."""
        return cls(
            store=store,
            summary=order_summary(basket, store, now),
            pay_url=pay_url,
            attempt_key=attempt_key,
            username=basket.username,
            email=basket.email or "",
            error=error,
            error_field=error_field,
            cancel_url=basket.cancel_url,
            billing=BillingForm.of(basket, store, pay_url.removesuffix("/pay") + "/billing"),
            discord_url=discord_url,
        )


@dataclass(frozen=True)
class ReceiptView:
    store: Store
    summary: OrderSummary
    transaction_id: str
    username: str | None = None
    email: str = ""
    continue_url: str | None = None  # the shop's complete URL for this basket
    manage_url: str | None = None  # the subscription's manage page, when it has one
    invoice_url: str | None = None  # the payment's invoice (webstore.invoices.documents)
    discord_url: str | None = None  # "Link Discord", when the store connected Discord (docs/discord.md)


# --- the frame: brand and policy ---------------------------------------------------------------


def branded(
    store: Store, template: str, title: str, *, width: str = "wide", extra_policy: str = "", **context: Any
) -> Page:
    """A hosted page in the store's brand, and the policy that allows its theme and images.
    `width`: "wide" (two columns on a desktop) or "medium" (one column); `extra_policy`: more
    directives (a processor's scripts and frames)."""
    look = brand(store)
    html = page(template, brand=look, title=title, width=width, **context)
    own = look.policy(*FORM_TARGETS, images=True)
    return Page.with_policy(html, f"{own}; {extra_policy}" if extra_policy else own)


# --- the order: the rows of totals (the same on the checkout and the receipt) ---------------


@dataclass(frozen=True)
class Row:
    kind: str  # its CSS class
    label: str
    note: str
    amount: Decimal


def rows(summary: OrderSummary, *, paid: bool = False) -> list[Row]:
    """The rows that take the lines to the amount due (`paid`: the receipt's, which says what
    was paid). Without gift cards, total and amount due are one row."""
    paid_by_cards = any(r.kind is RowKind.GIFT_CARD for r in summary.rows)
    due_label = "Amount paid" if paid else "Amount due"
    shown = [
        AmountRow(r.kind, "Total paid" if paid else "Total due", r.amount)
        if r.kind is RowKind.TOTAL and not paid_by_cards
        else AmountRow(r.kind, due_label, r.amount)
        if r.kind is RowKind.DUE
        else r
        for r in summary.rows
        if paid_by_cards or r.kind is not RowKind.DUE
    ]
    return [Row(_kind(r), r.label, r.note or "", r.amount) for r in shown]


def _kind(row: AmountRow) -> str:
    kind = {RowKind.DISCOUNT: "off", RowKind.TOTAL: "grand", RowKind.GIFT_CARD: "off"}.get(row.kind, row.kind)
    if row.kind is RowKind.TOTAL and row.label in ("Total due", "Total paid"):
        kind = "grand due"
    return str(kind)


# --- subscriptions --------------------------------------------------------------------------


def tax_note(summary: OrderSummary) -> str:
    return " plus tax" if summary.tax_rate and not summary.tax_included else ""


def consent_text(store: Store, summary: OrderSummary) -> str:
    """What the consent box says: who charges what, how often, until when."""
    terms = " and ".join(
        f"{r.name}: {money(r.price, summary.currency)} every {r.every}{tax_note(summary)}"
        for r in summary.renewals
    )
    return f"I agree that {store.name} charges the payment method I use now for {terms}, until I cancel."


def long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


# --- the checkout ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PaymentMethod:
    """What a gateway puts in the checkout's payment slot (see the module docstring):
    `template` defines the macros `form_attributes(pay_url, data)`, `fields(data)` and
    `scripts(data)`; `policy`: CSP directives the scripts need, appended to the page's."""

    template: str = "hosted/payment/sandbox.html"
    data: Mapping[str, str] = field(default_factory=dict)
    policy: str = ""


SANDBOX = PaymentMethod()


def checkout_page(view: CheckoutView, *, payment_method: PaymentMethod = SANDBOX) -> Page:
    summary, store = view.summary, view.store
    return branded(
        store,
        "hosted/checkout.html",
        "Checkout",
        extra_policy=payment_method.policy,
        view=view,
        rows=rows(summary),
        method=payment_method,
        tax=tax_note(summary),
        how_to_cancel=HOW_TO_CANCEL,
        consent=consent_text(store, summary) if summary.renewals else "",
        consent_field=SUBSCRIPTION_CONSENT,
        email_error=view.error_field == "email" and bool(view.error),
    )


# --- the receipt ----------------------------------------------------------------------------


def receipt_page(view: ReceiptView) -> Page:
    site = view.store.webstore_url
    visit = site if site.startswith(("https://", "http://")) and site != view.continue_url else None
    return branded(
        view.store,
        "hosted/receipt.html",
        "Receipt",
        width="medium",
        view=view,
        rows=rows(view.summary, paid=True),
        tax=tax_note(view.summary),
        how_to_cancel=HOW_TO_CANCEL_ON_RECEIPT,
        visit=visit,
    )


def message_page(
    title: str, text: str, *, link: str | None = None, link_text: str = "", store: Store | None = None
) -> str:
    """Why the checkout cannot go on, in the store's brand when it is known, with a way on."""
    return problem_page(
        title, text, brand=brand(store) if store else UNBRANDED, link=link, link_text=link_text
    )
