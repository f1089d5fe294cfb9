"""An owner's own subject and body for a message (panel → E-mails → a message; docs/mail.md,
"Your own wording").

The owner writes the subject, the HTML body and, if they like, the plain text (left empty it
is derived from the HTML). They run in the owner sandbox of the shop's templates
(`webstore.html.owner`: Jinja2's immutable sandbox, autoescape, StrictUndefined, a render
budget) with plain data only (`context_of`: strings, numbers, lists and dicts; never a house
object). The HTML body goes inside the house's mail layout (the store's logo, colour and the
legal footer stay), so an owner words the message without rebuilding its frame.

- Saving checks each part: a syntax error, or a variable the message does not have (looked up
  in the template's tree, so a branch the sample does not take is checked too), or a failure
  rendering the sample → `Invalid` naming the part and line; nothing is saved.
- Whatever a player typed (a username, a gift note) reaches the HTML escaped; the subject and
  plain text are not HTML and are not escaped (the subject is one line: line breaks become
  spaces).
- A message whose owner template fails at send time (data the sample did not have) is sent
  with the house's template instead, and the failure logged: a player is never left without it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from html.parser import HTMLParser
from typing import Any

from jinja2 import TemplateSyntaxError, meta, nodes

from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.html import render
from webstore.html.owner import OwnerTemplateError, environment, render_owner, render_owner_fragment
from webstore.mail.messages import OWNER_KINDS, MessageKind, Receipt, ReceiptLine, ReceiptRow
from webstore.money import display
from webstore.repo.mail import TemplateOverride

MAX_SUBJECT_CHARS = 300
MAX_BODY_CHARS = 50_000

# The variables each message's template has (and the docs list). Every kind has `store`.
PAYMENT_KINDS = frozenset({MessageKind.RECEIPT, MessageKind.RENEWAL_RECEIPT, MessageKind.REFUND})
SUBSCRIPTION_KINDS = frozenset(
    set(MessageKind) - {MessageKind.RECEIPT, MessageKind.REFUND, MessageKind.GIFT_CARD, MessageKind.SIGN_IN}
)


def variables(kind: str) -> tuple[str, ...]:
    """The names a template of `kind` may use."""
    names = ["store"]
    if kind in PAYMENT_KINDS:
        names += ["payment", "invoice"]
    if kind == MessageKind.REFUND:
        names.append("credit_note")
    if kind in SUBSCRIPTION_KINDS:
        names.append("subscription")
    if kind == MessageKind.GIFT_CARD:
        names.append("gift_card")
    elif kind != MessageKind.REFUND:
        names.append("manage_url")
    return tuple(names)


def editable(kind: str) -> bool:
    return kind in {k.value for k in OWNER_KINDS}


# --- the data a template sees ------------------------------------------------------------------


def _money(amount: Decimal, currency: str) -> str:
    return display(amount, currency) if currency else f"{amount:.2f}"


def _day(value: datetime | None) -> str:
    return value.strftime("%B %-d, %Y") if value is not None else ""


def payment_data(payment: Receipt) -> dict[str, Any]:
    money = payment.currency
    return {
        "transaction_id": payment.transaction_id,
        "username": payment.username,
        "currency": money,
        "lines": [
            {
                "name": line.name,
                "quantity": line.quantity,
                "amount": _money(line.amount, money),
                "gift_for": line.gift_for,
            }
            for line in payment.lines
        ],
        "rows": [
            {"label": row.label, "amount": _money(row.amount, money), "note": row.note}
            for row in payment.rows
        ],
        "total": _money(payment.total, money),
        "paid_on": payment.paid_on[:10],
    }


def context_of(
    kind: str,
    store: StoreProfile,
    *,
    payment: Receipt | None,
    subscription: Any | None,  # webstore.mail.compose.Subscription
    manage_url: str | None,
    invoice: tuple[str, str] | None,
    credit_note: tuple[str, str] | None,
    gift_card: dict[str, str] | None = None,
) -> dict[str, Any]:
    """The plain data a template of `kind` sees (exactly `variables(kind)`; a missing part is None)."""
    data: dict[str, Any] = {"store": {"name": store.name, "url": store.webstore_url}}
    names = variables(kind)
    if "payment" in names:
        data["payment"] = payment_data(payment) if payment is not None else None
        data["invoice"] = {"number": invoice[0], "url": invoice[1]} if invoice else None
    if "credit_note" in names:
        data["credit_note"] = {"number": credit_note[0], "url": credit_note[1]} if credit_note else None
    if "subscription" in names:
        data["subscription"] = (
            {
                "packages": ", ".join(subscription.names),
                "amount": _money(subscription.amount, subscription.currency),
                "next_payment_on": _day(subscription.next_payment_at),
                "retry_on": _day(subscription.retry_at),
                "action_url": subscription.action_url or "",
                "manage_url": subscription.manage_url or "",
            }
            if subscription is not None
            else None
        )
    if "manage_url" in names:
        data["manage_url"] = manage_url or ""
    if "gift_card" in names:
        data["gift_card"] = gift_card
    return data


SAMPLE_NOW = datetime(2026, 1, 15, 12, 0, tzinfo=UTC)


@dataclass(frozen=True)
class _SampleSubscription:
    names: list[str]
    amount: Decimal
    currency: str
    next_payment_at: datetime | None
    retry_at: datetime | None
    action_url: str | None
    manage_url: str | None


def sample_context(
    kind: str, store: StoreProfile, base_url: str = "https://shop.example.com"
) -> dict[str, Any]:
    """Made-up data of the right shape for `kind` (the preview, the test message and the check)."""
    payment = Receipt(
        transaction_id="tbx-sample-12345",
        currency="USD",
        lines=[
            ReceiptLine("VIP rank", 1, Decimal("9.99")),
            ReceiptLine("Diamond kit", 2, Decimal("4.00"), "Alex"),
        ],
        rows=[ReceiptRow("Subtotal", Decimal("13.99")), ReceiptRow("Tax", Decimal("1.40"))],
        total=Decimal("15.39"),
        username="Steve",
        paid_on=SAMPLE_NOW.isoformat(),
    )
    manage = f"{base_url}/subscriptions/sample"
    subscription = _SampleSubscription(
        names=["VIP rank"],
        amount=Decimal("9.99"),
        currency="USD",
        next_payment_at=SAMPLE_NOW + timedelta(days=30),
        retry_at=SAMPLE_NOW + timedelta(days=2),
        action_url=f"{base_url}/pay/sample",
        manage_url=manage,
    )
    return context_of(
        kind,
        store,
        payment=payment,
        subscription=subscription,
        manage_url=manage,
        invoice=("INV-2026-0001", f"{base_url}/invoices/sample"),
        credit_note=("CN-2026-0001", f"{base_url}/invoices/sample/credit"),
        gift_card={
            "code": "8F3A21C0D9E4B7A6",
            "balance": "$25.00 USD",
            "expires_on": _day(SAMPLE_NOW + timedelta(days=365)),
            "message": "Happy birthday, Alex!",
        },
    )


# --- checking and rendering ----------------------------------------------------------------------

PARTS = {"subject": "Subject", "html": "HTML body", "text": "Plain text"}


def _name(kind: str, part: str) -> str:
    """The sandbox's name of a part (ends in `.html`: the sandbox finds its line by it)."""
    return f"mail-{kind}-{part}.html"


def _source(part: str, source: str) -> str:
    """The subject and the plain text are not HTML: rendered without escaping (same lines)."""
    return source if part == "html" else "{% autoescape false %}" + source + "{% endautoescape %}"


def _unknown_names(kind: str, part: str, source: str) -> None:
    env = environment()
    try:
        tree = env.parse(source)
    except TemplateSyntaxError as error:
        raise Invalid(f"{PARTS[part]}, line {error.lineno}: {error.message or 'syntax error'}") from error
    allowed = set(variables(kind)) | set(env.globals)
    unknown = meta.find_undeclared_variables(tree) - allowed
    if unknown:
        first = min(
            (n for n in tree.find_all(nodes.Name) if n.name in unknown and n.ctx == "load"),
            key=lambda n: n.lineno,
        )
        known = ", ".join(variables(kind))
        raise Invalid(
            f"{PARTS[part]}, line {first.lineno}: unknown variable {first.name!r} (this message has {known})"
        )


def _render_part(kind: str, part: str, source: str, context: dict[str, Any]) -> str:
    name = _name(kind, part)
    return render_owner(name, {name: _source(part, source)}, **context)


def check(kind: str, template: TemplateOverride, store: StoreProfile) -> None:
    """Refuse a template that cannot be used (Invalid naming the part and the line)."""
    if not template.subject.strip():
        raise Invalid("Subject: write the message's subject", field="subject")
    if len(template.subject) > MAX_SUBJECT_CHARS:
        raise Invalid(f"Subject: at most {MAX_SUBJECT_CHARS} characters", field="subject")
    if not template.html.strip():
        raise Invalid("HTML body: write the message's body", field="html")
    for part in ("html", "text"):
        if len(getattr(template, part)) > MAX_BODY_CHARS:
            raise Invalid(f"{PARTS[part]}: at most {MAX_BODY_CHARS:,} characters", field=part)
    sample = sample_context(kind, store)
    for part in ("subject", "html", "text"):
        source = getattr(template, part)
        if not source:
            continue
        _unknown_names(kind, part, source)
        try:
            _render_part(kind, part, source, sample)
        except OwnerTemplateError as error:
            where = f", line {error.line}" if error.line else ""
            raise Invalid(f"{PARTS[part]}{where}: {error.message}", field=part) from error


@dataclass(frozen=True)
class Rendered:
    subject: str
    html: str
    text: str


def render_override(
    kind: str,
    template: TemplateOverride,
    context: dict[str, Any],
    *,
    frame: dict[str, Any],
) -> Rendered:
    """The owner's message with `context`, its HTML inside the house's layout (`frame`: brand,
    store, accent). OwnerTemplateError when a part fails."""
    subject = " ".join(_render_part(kind, "subject", template.subject, context).split())[:MAX_SUBJECT_CHARS]
    name = _name(kind, "html")
    body = render_owner_fragment(name, {name: template.html}, **context)
    text = _render_part(kind, "text", template.text, context) if template.text.strip() else html_to_text(body)
    return Rendered(
        subject=subject,
        html=render("mail/custom.html", title=subject, body=body, kind=kind, **frame),
        text=render("mail/custom.txt", title=subject, body=text, kind=kind, **frame),
    )


# --- the plain text of an HTML body ---------------------------------------------------------------

_BLOCKS = frozenset(
    {"p", "div", "h1", "h2", "h3", "h4", "h5", "h6", "table", "tr", "ul", "ol", "li", "blockquote"}
)


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str] = []
        self.links: list[str] = []
        self.skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("style", "script", "head", "title"):
            self.skip += 1
        elif tag == "br":
            self.out.append("\n")
        elif tag in _BLOCKS:
            self.out.append("\n\n" if tag not in ("tr", "li") else "\n")
            if tag == "li":
                self.out.append("- ")
        elif tag in ("td", "th"):
            self.out.append("  ")
        elif tag == "a":
            self.links.append(dict(attrs).get("href") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("style", "script", "head", "title"):
            self.skip = max(0, self.skip - 1)
        elif tag in _BLOCKS and tag not in ("li", "tr"):  # the next item's start breaks the line
            self.out.append("\n")
        elif tag == "a" and self.links:
            href = self.links.pop()
            if href and not href.startswith("#"):
                self.out.append(f" ({href})")

    def handle_data(self, data: str) -> None:
        if not self.skip:
            self.out.append(re.sub(r"\s+", " ", data))


def html_to_text(html: str) -> str:
    """Readable plain text of an HTML body: paragraphs and rows on their lines, links as
    `text (url)`, list items with `- `."""
    parser = _Text()
    parser.feed(html)
    parser.close()
    lines = [line.strip() for line in "".join(parser.out).splitlines()]
    text = "\n".join(lines)
    return re.sub(r"\n{3,}", "\n\n", text).strip() + "\n"
