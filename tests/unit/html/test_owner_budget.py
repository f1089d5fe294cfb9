"""An owner's template renders within a budget (webstore.html.owner.RenderBudget): time, output
size, loop steps, the size of what one `*` or `**` makes. Passing it is the template's error
(file and line), like an unknown variable; the house's pages stay far inside it."""

from __future__ import annotations

from typing import Any

import pytest

from webstore.html.owner import OwnerTemplateError, RenderBudget, check_template, render_owner

NESTED = "{% for a in range(1000) %}{% for b in range(1000) %}{% endfor %}{% endfor %}"


def render(source: str, budget: RenderBudget | None = None, **context: Any) -> str:
    extra = {"budget": budget} if budget else {}
    return render_owner("index.html", overrides={"index.html": source}, **extra, **context)


def test_loops_that_run_too_often_are_stopped_even_without_output() -> None:
    with pytest.raises(OwnerTemplateError, match="loops ran more than 200,000 times") as caught:
        render("line one\n" + NESTED)
    assert caught.value.name == "index.html" and caught.value.line == 2


def test_loops_over_the_data_count_too() -> None:
    items = list(range(600))
    source = "{% for a in items %}{% for b in items %}{% endfor %}{% endfor %}"
    with pytest.raises(OwnerTemplateError, match="loops ran"):
        render(source, items=items)  # 360,600 steps
    assert render("{% for a in items %}{% endfor %}ok", items=items) == "ok"


def test_a_page_too_long_is_stopped() -> None:
    with pytest.raises(OwnerTemplateError, match="longer than 1,000,000 characters"):
        render("{% for i in range(100000) %}{{ 'abcdefghij' ~ 'abcdefghij' }}{% endfor %}")


def test_a_render_too_slow_is_stopped() -> None:
    slow = RenderBudget(seconds=0.02, loop_steps=10**9)
    with pytest.raises(OwnerTemplateError, match=r"took longer than 0\.02 s"):
        render("{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}", slow)


@pytest.mark.parametrize(
    ("source", "message"),
    [
        ("{{ 'x' * 100000000 }}", "a `\\*` would make more than"),
        ("{{ [1] * 100000000 }}", "a `\\*` would make more than"),
        ("{{ 100000000 * 'x' }}", "a `\\*` would make more than"),
        ("{{ 9 ** 99999999 }}", "a `\\*\\*` would make a number"),
    ],
)
def test_one_expression_cannot_make_a_huge_value(source: str, message: str) -> None:
    with pytest.raises(OwnerTemplateError, match=message):
        render(source)


def test_small_products_and_powers_still_work() -> None:
    assert render("{{ '-' * 3 }} {{ 2 ** 10 }} {{ 3 * 4 }}") == "--- 1024 12"


def test_the_check_on_save_applies_the_budget() -> None:
    with pytest.raises(OwnerTemplateError, match="loops ran"):
        check_template("index.html", NESTED, [{}])
