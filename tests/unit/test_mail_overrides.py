"""The owner's e-mail templates as pure rules: the check (line of a syntax error or an unknown
variable, even in a branch the sample does not take), the sandbox escaping a player's value,
the plain text derived from the HTML."""

from __future__ import annotations

import pytest

from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.mail.overrides import (
    check,
    context_of,
    html_to_text,
    render_override,
    sample_context,
    variables,
)
from webstore.repo.mail import TemplateOverride
from webstore.storefront.theme import brand

STORE = StoreProfile.model_validate({"id": 1, "name": "Crafty", "webstore_url": "https://crafty.example"})


def test_each_message_has_its_variables() -> None:
    assert variables("receipt") == ("store", "payment", "invoice", "manage_url")
    assert variables("refund") == ("store", "payment", "invoice", "credit_note")
    assert variables("gift_card") == ("store", "gift_card")
    assert set(sample_context("renewal_failed", STORE)) == set(variables("renewal_failed"))


@pytest.mark.parametrize(
    ("html", "said"),
    [
        ("<p>ok</p>\n{% for x in payment.lines %}", "HTML body, line 2"),
        (
            "<p>ok</p>\n\n{% if false %}{{ password }}{% endif %}",
            "HTML body, line 3: unknown variable 'password'",
        ),
        ("{{ subscription.packages }}", "unknown variable 'subscription'"),  # not the receipt's
    ],
)
def test_the_check_names_the_line(html: str, said: str) -> None:
    with pytest.raises(Invalid) as refused:
        check("receipt", TemplateOverride(subject="Hi", html=html), STORE)
    assert said in refused.value.detail


def test_a_players_value_is_escaped_in_the_html_and_not_in_the_text() -> None:
    data = sample_context("receipt", STORE)
    data["payment"]["username"] = "<script>alert(1)</script>"
    template = TemplateOverride(subject="For {{ payment.username }}", html="<p>{{ payment.username }}</p>")
    frame = {"brand": brand(STORE), "store": STORE, "accent": "#123456"}
    rendered = render_override("receipt", template, data, frame=frame)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in rendered.html and "<script>" not in rendered.html
    assert rendered.subject == "For <script>alert(1)</script>"  # a header, not HTML
    assert "<script>alert(1)</script>" in rendered.text


def test_the_plain_text_of_an_html_body() -> None:
    text = html_to_text(
        '<h1>Hello</h1><p>Your <a href="https://x.test/i">invoice</a>.</p><ul><li>One</li><li>Two</li></ul>'
        "<style>p{color:red}</style>"
    )
    assert text == "Hello\n\nYour invoice (https://x.test/i).\n\n- One\n- Two\n"


def test_the_context_of_a_payment_without_an_invoice_says_so() -> None:
    data = context_of(
        "receipt", STORE, payment=None, subscription=None, manage_url=None, invoice=None, credit_note=None
    )
    assert data == {
        "store": {"name": "Crafty", "url": "https://crafty.example"},
        "payment": None,
        "invoice": None,
        "manage_url": "",
    }
