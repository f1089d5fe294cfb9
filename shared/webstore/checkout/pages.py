"""HTML of the hosted checkout: rendered from the basket, escaped, no external assets, in the
hosted pages' common frame (`storefront.pages`)."""

from __future__ import annotations

from decimal import Decimal
from html import escape

from webstore.basket import Basket
from webstore.money import round_money, symbol
from webstore.storefront import pages as hosted

# The pay form redirects to the gateway or the shop's complete URL (checked when the basket was made).
CSP = hosted.content_security_policy("http:", "https:")


def money(amount: Decimal, currency: str) -> str:
    return f"{symbol(currency)}{round_money(amount, currency)} {currency}"


def page(title: str, body: str) -> str:
    return hosted.page(title, hosted.Safe(body))


def summary(basket: Basket) -> str:
    c = basket.currency
    rows = "".join(
        f"<tr><td>{escape(line.name)}"
        + (f" <small>(gift for {escape(line.gift_username)})</small>" if line.gift_username else "")
        + f"</td><td class=n>{line.quantity}</td><td class=n>{escape(money(line.line_price, c))}</td></tr>"
        for line in basket.lines
    )
    extra = ""
    if basket.discount:
        extra += f"<tr><td colspan=2>Discounts</td><td class=n>-{escape(money(basket.discount, c))}</td></tr>"
    if basket.sales_tax:
        extra += f"<tr><td colspan=2>Sales tax</td><td class=n>{escape(money(basket.sales_tax, c))}</td></tr>"
    if basket.giftcard_amount:
        covered = escape(money(basket.giftcard_amount, c))
        extra += f"<tr><td colspan=2>Gift cards</td><td class=n>-{covered}</td></tr>"
    due = basket.total_price - basket.giftcard_amount
    return (
        "<table aria-label='Basket'><thead>"
        "<tr><th>Package</th><th class=n>Qty</th><th class=n>Price</th></tr>"
        f"</thead><tbody>{rows}{extra}"
        f"<tr class=total><td colspan=2>Total due</td><td class=n id=total>{escape(money(due, c))}</td></tr>"
        "</tbody></table>"
    )


def consent(terms: list[str]) -> str:
    """The recurring-charge consent a subscription basket needs: what renews, for how much, how
    often, and how to cancel; the box is required (pay refuses the form without it)."""
    if not terms:
        return ""
    items = "".join(f"<li>{escape(term)}</li>" for term in terms)
    return (
        "<fieldset id=subscription><legend>Subscription</legend>"
        f"<p>Renews automatically with the card you pay with now:</p><ul>{items}</ul>"
        "<p>Cancel any time from the link on your receipt; you keep it until the end of the"
        " period you paid for, and nothing more is charged.</p>"
        "<label><input type=checkbox id=consent name=subscription_consent value=yes required>"
        " I agree to these recurring charges until I cancel</label></fieldset>"
    )


def checkout_page(
    basket: Basket,
    *,
    pay_url: str,
    attempt_key: str,
    error: str = "",
    subscription_terms: list[str] | None = None,
) -> str:
    cancel = (
        f'<p><a id=cancel href="{escape(basket.cancel_url, quote=True)}">'
        "Cancel and return to the shop</a></p>"
        if basket.cancel_url
        else ""
    )
    who = f"<p>Paying as <strong>{escape(basket.username or '')}</strong></p>" if basket.username else ""
    problem = f"<p class=error role=alert id=error>{escape(error)}</p>" if error else ""
    form = (
        f'<form method=post action="{escape(pay_url, quote=True)}">'
        f'<input type=hidden name=attempt_key value="{escape(attempt_key, quote=True)}">'
        # what this page asked for: pay refuses to charge another amount without showing it
        f'<input type=hidden name=amount_due value="{basket.total_price - basket.giftcard_amount}">'
        "<label for=card>Card number (sandbox: any number pays; 4000 0000 0000 0002 declines)</label>"
        "<input id=card name=card_number inputmode=numeric autocomplete=cc-number maxlength=23"
        ' value="4242 4242 4242 4242">'
        f"{consent(subscription_terms or [])}"
        "<p><button id=pay type=submit>Pay now</button></p></form>"
    )
    return page("Checkout", f"<h1>Checkout</h1>{who}{problem}{summary(basket)}{form}{cancel}")


def message_page(title: str, text: str, *, link: str | None = None, link_text: str = "") -> str:
    return hosted.problem_page(title, text, link=link, link_text=link_text)


def receipt_page(basket: Basket, transaction_id: str) -> str:
    back = (
        f'<p><a id=continue href="{escape(basket.complete_url, quote=True)}">Return to the shop</a></p>'
        if basket.complete_url
        else ""
    )
    return page(
        "Payment complete",
        f"<h1>Thank you!</h1><p>Transaction <code id=txn>{escape(transaction_id)}</code></p>"
        f"{summary(basket)}{back}",
    )
