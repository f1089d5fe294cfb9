"""Storefront scenarios for scripts/bench_round_trips.py."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from functions.storefront import (
    get_categories,
    get_category,
    get_package,
    get_packages,
    get_pages,
    get_webstore,
)


def setup(ctx: dict[str, Any]) -> None:
    ctx["base"] = f"/api/accounts/{ctx['demo'].public_token}"


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    base = ctx["base"]
    yield "getWebstore", get_webstore.handler, "GET", base, {}
    yield "getCustomPages", get_pages.handler, "GET", f"{base}/pages", {}
    yield "getCategories", get_categories.handler, "GET", f"{base}/categories", {}
    yield (
        "getCategories?includePackages=1",
        get_categories.handler,
        "GET",
        f"{base}/categories",
        {"query": {"includePackages": "1"}},
    )
    yield (
        "getCategory (slug, with packages)",
        get_category.handler,
        "GET",
        f"{base}/categories/crates",
        {"query": {"includePackages": "1"}},
    )
    yield "getPackages", get_packages.handler, "GET", f"{base}/packages", {}
    yield "getPackage (slug)", get_package.handler, "GET", f"{base}/packages/diamond-sword", {}
