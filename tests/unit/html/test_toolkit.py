"""The HTML toolkit: house templates render with autoescape and StrictUndefined, player pages
in the store's brand with the stylesheet their policy allows, and a way back to the store."""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from jinja2 import UndefinedError

from webstore.html import Markup, environment, render
from webstore.html.player import Brand, page, problem_page, style_hash, stylesheet, stylesheet_hash


def inline_styles(html: str) -> list[str]:
    return re.findall(r"<style>(.*?)</style>", html, re.S)


def test_values_are_escaped_unless_markup() -> None:
    env = environment()
    template = env.from_string("{{ text }}|{{ safe }}")
    assert template.render(text="<b>&", safe=Markup("<i>x</i>")) == "&lt;b&gt;&amp;|<i>x</i>"


def test_a_name_the_caller_did_not_pass_is_an_error_not_an_empty_string() -> None:
    with pytest.raises(UndefinedError):
        render("hosted/problem.html", brand=Brand(), title="t", message="m")  # no link


def test_money_and_dates_filters_use_the_house_formatting() -> None:
    template = environment().from_string("{{ a|money('USD') }} {{ b|money('JPY') }}")
    assert template.render(a=Decimal("-1.5"), b=Decimal("1200")) == "\u2212$1.50 USD ¥1200 JPY"


def test_a_player_page_is_branded_and_its_styles_are_the_ones_its_policy_allows() -> None:
    theme = ":root{--brand:#2d1b69;--on-brand:#ffffff}"
    brand = Brand("Demo <Craft>", "https://img.test/logo.png", "https://shop.test/", theme, "de")
    html = problem_page("Basket not found", "It <expired>.", brand=brand)
    assert html.startswith('<!doctype html>\n<html lang="de">')
    assert '<strong id="store-name">Demo &lt;Craft&gt;</strong>' in html
    assert '<img src="https://img.test/logo.png"' in html and "It &lt;expired&gt;." in html
    # A German brand's page is German (the shop's catalogs), the store's name still escaped.
    assert '<a id="back-to-store" href="https://shop.test/">Zurück zu Demo &lt;Craft&gt;</a>' in html
    assert [style_hash(s) for s in inline_styles(html)] == [stylesheet_hash(), style_hash(theme)]
    policy = brand.policy()
    for digest in (stylesheet_hash(), style_hash(theme)):
        assert f"'sha256-{digest}'" in policy
    assert "img-src https: http:" in policy and "unsafe-inline" not in policy and "script-src" not in policy
    assert "<script" not in html and "style=" not in html


def test_an_unbranded_problem_page_still_says_how_to_go_on() -> None:
    html = problem_page("Cannot log in", "Basket not found")
    assert "<header" not in html and 'id="back-to-store"' not in html and 'id="way-back"' in html
    assert inline_styles(html) == [stylesheet()]
    linked = problem_page(
        "Checkout", "Paid.", link="https://shop.test/basket", link_text="Back to the basket"
    )
    assert '<a id="continue" href="https://shop.test/basket">Back to the basket</a>' in linked
    assert 'id="way-back"' not in linked


def test_a_brand_keeps_only_web_links() -> None:
    brand = Brand("S", logo="javascript:alert(1)", url="data:text/html,x")
    assert brand.logo is None and brand.url is None
    html = page("hosted/problem.html", brand=brand, title="t", message="m", link=None, link_text="")
    assert "javascript:" not in html and "data:" not in html
