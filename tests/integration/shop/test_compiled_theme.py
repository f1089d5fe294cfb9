"""The shop's pages through their handlers render the same from the default theme compiled ahead
of time (the modules a Lambda bundle carries, webstore.html.compile) as from its files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from jinja2 import FileSystemLoader, ModuleLoader

from functions.shop import get_basket, get_category, get_home, get_login, get_package, get_page, post_login
from tests.integration.shop.test_forms import add
from tests.support.shop import ShopClient
from webstore.html import owner
from webstore.html.compile import compile_all

PAGES: list[tuple[Any, str]] = [
    (get_home.handler, "/"),
    (get_category.handler, "/category/items"),
    (get_category.handler, "/category/ranks"),
    (get_package.handler, "/package/11"),
    (get_package.handler, "/package/1"),
    (get_basket.handler, "/basket"),
    (get_login.handler, "/login"),
    (get_page.handler, "/page/rules"),
    (get_package.handler, "/package/999"),  # the branded 404 (error.html)
]


@pytest.fixture
def compiled_theme(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The templates compiled as the bundle compiles them; the theme's at first from its files."""
    house, theme = compile_all(tmp_path / "compiled")
    assert house and {"index.html", "layout.html", "cms/page.html", "error.html"} <= set(theme)
    monkeypatch.setattr(owner, "COMPILED_THEME", tmp_path / "absent")
    owner.reset()
    yield tmp_path / "compiled" / "shop"
    monkeypatch.undo()
    owner.reset()


def pages(player: ShopClient) -> dict[str, str]:
    seen = {}
    for handler, path in PAGES:
        page = player.get(handler, path)
        assert page.status == (404 if path == "/package/999" else 200), (path, page.body[:300])
        seen[path] = page.body
    return seen


def test_every_shop_page_renders_the_same_from_the_compiled_theme(
    compiled_theme: Path, player: ShopClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    player.get(get_login.handler, "/login")  # the CSRF cookie
    add(player)  # a sword in the basket
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    from_files = pages(player)
    assert isinstance(owner.environment().loader, FileSystemLoader)

    monkeypatch.setattr(owner, "COMPILED_THEME", compiled_theme)
    owner.reset()
    from_modules = pages(player)
    assert isinstance(owner.environment().loader, ModuleLoader)

    for _, path in PAGES:
        assert from_modules[path] == from_files[path], path
    assert "Diamond Sword" in from_modules["/basket"] and "Notch" in from_modules["/basket"]
    assert '<h1 id="hero-title">Demo Craft</h1>' in from_modules["/"]
