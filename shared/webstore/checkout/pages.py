"""HTML of the hosted checkout and receipt, in the hosted pages' common frame (`storefront.pages`).

A page is rendered from a view (`CheckoutView`, `ReceiptView`) that the use cases build
(`checkout.checkout`); the order is `summary.order_summary`'s rows, which add up. Every value
is escaped (`fill`); the store's colours are a second stylesheet and its images (logo,
packages) the only external things, both allowed by the page's own policy (`Page.policy`).

The payment part of the form is a slot (`checkout_page(payment_method=PaymentMethod(…))`):
the sandbox's card-number field by default. A processor whose element confirms the payment in
the page (Stripe's Payment Element) brings its fields, the form's attributes (its id and data
attributes instead of the post to the pay URL), its scripts and the policy directives they
need; the rest of the form (email, subscription consent, legal links, the pay button `#pay`)
stays the same for every gateway.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from decimal import Decimal
from string import Template

from webstore.basket import Basket
from webstore.catalog import Store
from webstore.checkout.summary import AmountRow, LineView, OrderSummary, RowKind, order_summary
from webstore.money import round_money, symbol
from webstore.storefront import pages as hosted
from webstore.storefront.pages import Page, Safe, fill
from webstore.storefront.theme import theme_style

# The pay form redirects to the gateway or the shop's complete URL (checked when the basket was made).
FORM_TARGETS = ("http:", "https:")
CSP = hosted.content_security_policy(*FORM_TARGETS)

SUBSCRIPTION_CONSENT = "subscription_consent"  # the pay form's consent field (a checkbox, "yes")
HOW_TO_CANCEL = (
    "Cancel any time from the “Manage or cancel your subscription” link on your receipt. You"
    " keep what you paid for until the end of the current period and are not charged again."
)
HOW_TO_CANCEL_ON_RECEIPT = HOW_TO_CANCEL.replace("on your receipt", "on this receipt")


def money(amount: Decimal, currency: str) -> str:
    sign = "\u2212" if amount < 0 else ""
    return f"{sign}{symbol(currency)}{round_money(abs(amount), currency)} {currency}"


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


# --- the frame: banner, theme, policy ----------------------------------------------------------

_BANNER = Template(
    '<header class="brand $width"><div>$logo<strong id="store-name">$name</strong></div></header>\n'
)
_LOGO = Template('<img src="$src" alt="" width="40" height="40">')


def branded(store: Store, title: str, content: Safe, *, width: str = "wide", extra_policy: str = "") -> Page:
    """A hosted page in the store's colours with its banner, and the policy that allows both.
    `width`: "wide" (two columns on a desktop) or "medium" (one column); `extra_policy`: more
    directives (a processor's scripts and frames)."""
    logo = store.logo if store.logo and store.logo.startswith(("https://", "http://")) else None
    banner = fill(_BANNER, width=width, logo=fill(_LOGO, src=logo) if logo else Safe(""), name=store.name)
    theme = theme_style(store)
    html = hosted.page(
        f"{title} · {store.name}", content, store.lang, theme=theme, header=banner, width=width
    )
    themes = (theme,) if theme else ()
    policy = hosted.content_security_policy(*FORM_TARGETS, themes=themes, images=True)
    return Page.with_policy(html, f"{policy}; {extra_policy}" if extra_policy else policy)


# --- the order: lines and totals (the same on the checkout and the receipt) -------------------

_LINE = Template("""<li>$thumb<div class="what"><strong>$name</strong>\
<span class="meta">$quantity &times; $unit</span>$extra</div><span class="amount">$total</span></li>""")
_THUMB = Template('<img class="thumb" src="$src" alt="" width="56" height="56">')
_INITIAL = Template('<span class="thumb" aria-hidden="true">$initial</span>')
_META = Template('<span class="meta">$text</span>')
_ROW = Template(
    '<tr class="$kind"><th scope="row">$label$note</th><td data-amount="$value">$amount</td></tr>'
)
_NOTE = Template(' <span class="meta">$text</span>')
_TAX_INCLUDED = Template('<p class="note">$text</p>')
_CREATOR_CODE = Template(
    '<p class="note" id="creator-code">Creator code <strong>$code</strong>: this purchase'
    " supports a creator; it does not change your price.</p>"
)


def order(summary: OrderSummary, *, paid: bool = False) -> Safe:
    """The lines at list price, then the rows that take them to the amount due (`paid`: the
    receipt's, which says what was paid). Without gift cards, total and amount due are one row."""
    currency = summary.currency
    lines = "".join(_line(line, currency) for line in summary.lines)
    rows = summary.rows
    paid_by_cards = any(r.kind is RowKind.GIFT_CARD for r in rows)
    due_label = "Amount paid" if paid else "Amount due"
    shown = [
        AmountRow(r.kind, "Total paid" if paid else "Total due", r.amount)
        if r.kind is RowKind.TOTAL and not paid_by_cards
        else AmountRow(r.kind, due_label, r.amount)
        if r.kind is RowKind.DUE
        else r
        for r in rows
        if paid_by_cards or r.kind is not RowKind.DUE
    ]
    body = "".join(_row(r, currency) for r in shown)
    html = (
        f'<ul class="lines" aria-label="Packages">{lines}</ul>'
        f'<table class="totals" aria-label="Totals"><tbody>{body}</tbody></table>'
    )
    if summary.tax_included:
        included = money(summary.tax_included, currency)
        rate = f"{summary.tax_rate.normalize():f}"
        html += fill(_TAX_INCLUDED, text=f"Prices include {included} sales tax ({rate}%).")
    if summary.creator_code:
        html += fill(_CREATOR_CODE, code=summary.creator_code)
    return Safe(html)


def _line(line: LineView, currency: str) -> str:
    if line.image:
        thumb = fill(_THUMB, src=line.image)
    else:
        thumb = fill(_INITIAL, initial=(line.name.strip()[:1] or "?").upper())
    extra = []
    if line.gift_for:
        extra.append(fill(_META, text=f"Gift for {line.gift_for}"))
    extra += [fill(_META, text=f"{name}: {value}") for name, value in line.details]
    if line.renewal:
        extra.append(fill(_META, text=f"Subscription, renews every {line.renewal.every}"))
    return str(
        fill(
            _LINE,
            thumb=thumb,
            name=line.name,
            quantity=str(line.quantity),
            unit=money(line.unit_price, currency),
            extra=Safe("".join(extra)),
            total=money(line.line_total, currency),
        )
    )


def _row(row: AmountRow, currency: str) -> str:
    kind = {RowKind.DISCOUNT: "off", RowKind.TOTAL: "grand", RowKind.GIFT_CARD: "off"}.get(row.kind, row.kind)
    if row.kind is RowKind.TOTAL and row.label in ("Total due", "Total paid"):
        kind = "grand due"
    return str(
        fill(
            _ROW,
            kind=kind,
            label=row.label,
            note=fill(_NOTE, text=row.note) if row.note else Safe(""),
            value=str(row.amount),
            amount=money(row.amount, currency),
        )
    )


# --- subscriptions --------------------------------------------------------------------------

_RENEWAL = Template("""<dl><dt>Package</dt><dd>$name</dd>\
<dt>Renews at</dt><dd>$price every $every$tax</dd><dt>Next renewal</dt><dd>$when</dd></dl>""")


def renewals(summary: OrderSummary, store: Store) -> Safe:
    tax = " plus tax" if summary.tax_rate and not summary.tax_included else ""
    return Safe(
        "".join(
            str(
                fill(
                    _RENEWAL,
                    name=r.name,
                    price=money(r.price, summary.currency),
                    every=r.every,
                    tax=tax,
                    when=long_date(r.renews_on) if r.renews_on else "no fixed date",
                )
            )
            for r in summary.renewals
        )
    )


def consent_text(store: Store, summary: OrderSummary) -> str:
    """What the consent box says: who charges what, how often, until when."""
    tax = " plus tax" if summary.tax_rate and not summary.tax_included else ""
    terms = " and ".join(
        f"{r.name}: {money(r.price, summary.currency)} every {r.every}{tax}" for r in summary.renewals
    )
    return f"I agree that {store.name} charges the payment method I use now for {terms}, until I cancel."


def long_date(day: date) -> str:
    return f"{day.day} {day:%B %Y}"


# --- the checkout ---------------------------------------------------------------------------

_CHECKOUT = Template("""<h1>Checkout</h1>
$who$error<div class="cols">
<section aria-labelledby="order-title">
<h2 id="order-title">Your order</h2>
$order
</section>
<section class="pay" aria-labelledby="pay-title">
<h2 id="pay-title">Payment</h2>
<form $form_attributes>
<input type=hidden name=attempt_key value="$attempt_key">
<input type=hidden name=amount_due value="$amount_due">
<label for="email">Email for your receipt</label>
<input id="email" name="email" type="email" value="$email" maxlength="254" autocomplete="email"
 spellcheck="false" aria-describedby="email-help$email_error_ref"$email_invalid>
<p id="email-help" class="help">Optional. The store gets it with your order to send your receipt.</p>
<div id="payment-method">
$payment_fields
</div>
$subscription$legal<p><button id="pay" type="submit">Pay now · $due</button></p>
</form>
$cancel</section>
</div>
$scripts""")

_WHO = Template('<p class="who">Paying as <strong id="username">$username</strong></p>\n')
_ERROR = Template('<p class="error" role="alert" id="error">$message</p>\n')
_SANDBOX_CARD = Safe(
    "<label for=card>Card number</label>"
    "<input id=card name=card_number inputmode=numeric autocomplete=cc-number maxlength=23"
    ' value="4242 4242 4242 4242" aria-describedby="card-help">'
    '<p id="card-help" class="help">Sandbox: any number pays; 4000 0000 0000 0002 declines.</p>'
)
_SUBSCRIPTION = Template("""<section class="sub" aria-labelledby="sub-title">
<h3 id="sub-title">Subscription</h3>
$renewals<p><strong>How to cancel:</strong> $how_to_cancel</p>
<label class="consent"><input type=checkbox id=consent name=$field value=yes required>\
<span>$consent</span></label>
</section>
""")
_LEGAL = Template('<p class="legal">By paying you accept $links.</p>\n')
_LEGAL_LINK = Template('<a href="$href" target="_blank" rel="noopener noreferrer" id="$id">$text</a>')
_CANCEL = Template('<p><a id=cancel href="$href">Cancel and return to the shop</a></p>\n')


NOTHING = Safe("")
_POST_FORM = Template('method=post action="$pay_url" id="pay-form"')


@dataclass(frozen=True)
class PaymentMethod:
    """What a gateway puts in the checkout's payment slot (see the module docstring)."""

    fields: Safe
    form_attributes: Safe | None = None  # None: post to the pay URL (`_POST_FORM`)
    scripts: Safe = NOTHING
    policy: str = ""  # CSP directives the scripts need, appended to the page's


SANDBOX = PaymentMethod(fields=_SANDBOX_CARD)


def checkout_page(view: CheckoutView, *, payment_method: PaymentMethod = SANDBOX) -> Page:
    summary, store = view.summary, view.store
    email_error = view.error_field == "email" and bool(view.error)
    form_attributes = payment_method.form_attributes or fill(_POST_FORM, pay_url=view.pay_url)
    content = fill(
        _CHECKOUT,
        who=fill(_WHO, username=view.username) if view.username else Safe(""),
        error=fill(_ERROR, message=view.error) if view.error else Safe(""),
        order=order(summary),
        form_attributes=form_attributes,
        attempt_key=view.attempt_key,
        # what this page asked for: pay refuses to charge another amount without showing it
        amount_due=str(summary.amount_due),
        email=view.email[:254],
        email_error_ref=" error" if email_error else "",
        email_invalid=Safe(' aria-invalid="true"') if email_error else Safe(""),
        payment_fields=payment_method.fields,
        scripts=payment_method.scripts,
        subscription=subscription_section(summary, store),
        legal=legal_links(store),
        due=money(summary.amount_due, summary.currency),
        cancel=fill(_CANCEL, href=view.cancel_url) if view.cancel_url else Safe(""),
    )
    return branded(store, "Checkout", content, extra_policy=payment_method.policy)


def subscription_section(summary: OrderSummary, store: Store) -> Safe:
    """Amount, period, renewal date, how to cancel, and the consent the pay form sends."""
    if not summary.renewals:
        return Safe("")
    return fill(
        _SUBSCRIPTION,
        renewals=renewals(summary, store),
        how_to_cancel=HOW_TO_CANCEL,
        field=SUBSCRIPTION_CONSENT,
        consent=consent_text(store, summary),
    )


def legal_links(store: Store) -> Safe:
    """The "By paying you accept ..." line: the store's terms and refund policy, those it has."""
    owner = f"{store.name}\u2019s"
    links = []
    if store.terms_url:
        links.append(fill(_LEGAL_LINK, href=store.terms_url, id="terms", text=f"{owner} terms"))
    if store.refund_policy_url:
        text = "its refund policy" if links else f"{owner} refund policy"
        links.append(fill(_LEGAL_LINK, href=store.refund_policy_url, id="refund-policy", text=text))
    return fill(_LEGAL, links=Safe(" and ".join(links))) if links else Safe("")


# --- the receipt ----------------------------------------------------------------------------

_RECEIPT = Template("""<p><span class="paid" id="status">Paid</span></p>
<h1>Thank you for your purchase</h1>
<p>Transaction <code id=txn>$transaction_id</code></p>
$who$order
$subscription$legal$links""")
_PAID_BY = Template('<p class="who">Paid by <strong id="username">$username</strong>$email</p>\n')
_RECEIPT_TO = Template(' · receipt to <span id="email">$email</span>')
_RECEIPT_SUB = Template("""<section class="sub" aria-labelledby="sub-title">
<h2 id="sub-title">Your subscription</h2>
$renewals<p><strong>How to cancel:</strong> $how_to_cancel</p>
$manage</section>
""")
_MANAGE = Template('<p><a id=manage href="$href">Manage or cancel your subscription</a></p>\n')
_BACK = Template('<p><a id=continue href="$href">Return to the shop</a></p>\n')
_VISIT = Template('<p><a id=shop href="$href">Visit $name</a></p>\n')


def receipt_page(view: ReceiptView) -> Page:
    summary, store = view.summary, view.store
    who = Safe("")
    if view.username:
        email = fill(_RECEIPT_TO, email=view.email) if view.email else Safe("")
        who = fill(_PAID_BY, username=view.username, email=email)
    subscription = (
        fill(
            _RECEIPT_SUB,
            renewals=renewals(summary, store),
            how_to_cancel=HOW_TO_CANCEL_ON_RECEIPT,
            manage=fill(_MANAGE, href=view.manage_url) if view.manage_url else Safe(""),
        )
        if summary.renewals
        else Safe("")
    )
    links = fill(_BACK, href=view.continue_url) if view.continue_url else Safe("")
    site = store.webstore_url
    if site.startswith(("https://", "http://")) and site != view.continue_url:
        links = Safe(links + fill(_VISIT, href=site, name=store.name))
    content = fill(
        _RECEIPT,
        transaction_id=view.transaction_id,
        who=who,
        order=order(summary, paid=True),
        subscription=subscription,
        legal=_receipt_legal(store),
        links=links,
    )
    return branded(store, "Receipt", content, width="medium")


def _receipt_legal(store: Store) -> Safe:
    text = legal_links(store)
    return Safe(text.replace("By paying you accept", "You accepted")) if text else Safe("")


def message_page(title: str, text: str, *, link: str | None = None, link_text: str = "") -> str:
    return hosted.problem_page(title, text, link=link, link_text=link_text)
