"""Templates compiled ahead of time (what a Lambda bundle carries) render every hosted page
exactly as the template files do (the panel's shell and pages too)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path

import pytest

import webstore.html
from tests.unit.admin.test_dashboard_page import board
from tests.unit.test_hosted_pages import NOW, basket, checkout_view, receipt_view, store
from webstore.admin import dashboard_page, layout, login
from webstore.admin.catalog_forms import render_fields
from webstore.admin.roles import Role
from webstore.basket import BasketLine
from webstore.catalog import PackageType
from webstore.checkout import pages as checkout_pages
from webstore.checkout import stripe_page
from webstore.checkout.summary import order_summary
from webstore.html import TEMPLATES
from webstore.html.compile import compile_templates
from webstore.html.player import Brand, problem_page
from webstore.storefront.auth_page import form_page
from webstore.storefront.basket_auth import AuthPrompt
from webstore.subscriptions.manage_page import ManageView, manage_page


def subscription_view() -> checkout_pages.CheckoutView:
    s = store().model_copy(update={"terms_url": "https://t.test/", "refund_policy_url": "https://r.test/"})
    line = BasketLine(
        package_id=2,
        category_id=1,
        ident="pkg_2_1",
        name="VIP",
        base_price=Decimal("4.99"),
        type=PackageType.SUBSCRIPTION,
        expiry_period="month",
        expiry_length=1,
    )
    b = basket()
    b.lines.append(line)
    b.reprice(s, NOW)
    return checkout_pages.CheckoutView(
        store=s, summary=order_summary(b, s, NOW), pay_url="https://x.test/pay", attempt_key="k", error="<no>"
    )


def manage(ongoing: bool, cancelled: bool) -> ManageView:
    moment = datetime(2026, 7, 1, tzinfo=UTC)
    return ManageView(
        store="Demo <Craft>",
        packages=["VIP"],
        amount=Decimal("4.99"),
        currency="EUR",
        period_length=1,
        period_unit="month",
        status="Active",
        ongoing=ongoing,
        next_payment_at=moment,
        cancel_requested_at=moment if cancelled else None,
        ended_at=None if ongoing else moment,
        action_url="https://bank.test/",
    )


STRIPE = stripe_page.payment_method(
    publishable_key="pk",
    client_secret="cs",
    return_url="https://x.test/r",
    email="a@b.test",
    js_url="https://js.test/v3",
)
BRAND = Brand("Demo", "https://img.test/l.png", "https://shop.test/", ":root{--brand:#000000}", "de")
PAGES: dict[str, Callable[[], str]] = {
    "problem": lambda: problem_page("Not found", "Basket <x> not found"),
    "branded problem": lambda: problem_page("Checkout", "Paid.", brand=BRAND, link="https://shop.test/b"),
    "auth": lambda: form_page(
        AuthPrompt(store(), basket(), "https://shop.test/back"), username="x", error="<e>"
    ),
    "checkout": lambda: checkout_pages.checkout_page(checkout_view(store())),
    "stripe checkout": lambda: checkout_pages.checkout_page(checkout_view(store()), payment_method=STRIPE),
    "subscription checkout": lambda: checkout_pages.checkout_page(subscription_view()),
    "receipt": lambda: checkout_pages.receipt_page(receipt_view(store())),
    "renewing": lambda: manage_page(manage(True, False), "token", BRAND),
    "ending": lambda: manage_page(manage(True, True), "token"),
    "ended": lambda: manage_page(manage(False, False), "token"),
    "panel sign-in": lambda: login.form("/catalog?x=<1>", email="a<b>", error="Wrong").html,
    "panel problem": lambda: layout.problem("Not found", "No such <page>"),
    "panel shell": lambda: layout.panel_page(
        "Package <1>",
        render_fields("package", {"name": "<b>", "commands.0.command": "say hi"}, creating=False),
        session=Member(),
        section="catalog",
        done="Saved",
    ),
    "panel dashboard": lambda: dashboard_page.render(board()),
}


@dataclass(frozen=True)
class Member:
    """A signed-in staff member as the panel's shell shows one."""

    email: str = "owner@demo.test"
    csrf_token: str = "token"
    role: Role = Role.OWNER


def render_all() -> dict[str, str]:
    return {name: str(render()) for name, render in PAGES.items()}


@pytest.fixture
def loader_switch(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    yield monkeypatch
    monkeypatch.undo()
    webstore.html.reset()


def test_compiled_templates_render_every_page_as_the_files_do(
    tmp_path: Path, loader_switch: pytest.MonkeyPatch
) -> None:
    from jinja2 import FileSystemLoader, ModuleLoader

    target = tmp_path / "compiled"
    names = compile_templates(target)
    house = [p for p in TEMPLATES.rglob("*.*") if p.relative_to(TEMPLATES).parts[0] != "shop"]
    assert len(list(target.glob("tmpl_*.py"))) == len(names) == len(house)  # the shop's: its sandbox
    loader_switch.setattr(webstore.html, "COMPILED", target)
    webstore.html.reset()
    assert isinstance(webstore.html.environment().loader, ModuleLoader)
    from_modules = render_all()

    loader_switch.setattr(webstore.html, "COMPILED", tmp_path / "absent")
    webstore.html.reset()
    assert isinstance(webstore.html.environment().loader, FileSystemLoader)
    from_files = render_all()

    for name in PAGES:
        assert from_modules[name] == from_files[name], name
    assert "&lt;e&gt;" in from_modules["auth"] and 'id="way-back"' in from_modules["problem"]
    assert (
        # The brand's language is German: the compiled `trans` translates at render time too.
        "<dt>Verlängert sich zu</dt>" in from_modules["subscription checkout"]
        and 'id="undo"' in from_modules["ending"]
    )
    assert 'name="next" value="/catalog?x=&lt;1&gt;"' in from_modules["panel sign-in"]
    assert '<p class="done" role="status">Saved</p>' in from_modules["panel shell"]
    assert 'name="commands.0.command" value="say hi"' in from_modules["panel shell"]
