"""What a function imports at its cold start, checked in a fresh interpreter (this one has
imported everything long ago): a function that is not HTTP does not import the HTTP runtime
(FastAPI costs ~180 ms of a cold start); the shop's read pages do not import the basket,
checkout, tax, Steam or payment code that only a visitor's basket, a form or the log-in page
needs, nor the storefront's request bodies or wire models (docs/cold-start.md, "Shop pages")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from functions.routes import consumers

ROOT = Path(__file__).resolve().parents[2]
# Imports each module in turn; prints, per module, the HTTP-runtime modules loaded so far.
PROBE = """
import importlib, json, sys
seen = {}
for module in sys.argv[1:]:
    importlib.import_module(module)
    seen[module] = sorted(m for m in sys.modules if m.split(".")[0] in ("fastapi", "starlette", "mangum"))
print(json.dumps(seen))
"""


def test_event_consumers_do_not_import_fastapi() -> None:
    modules = [each.module for each in consumers()]
    assert modules, "the route table declares event consumers"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run(
        [sys.executable, "-c", PROBE, *modules, "functions.runtime"],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        check=True,
    )
    seen = json.loads(result.stdout)
    for module in modules:
        assert not seen[module], f"{module} imports the HTTP runtime: {seen[module][:5]}"
    assert "fastapi" in seen["functions.runtime"]  # the probe does see FastAPI where it is imported


# Imports one module; prints the modules loaded then.
LOADED = (
    "import importlib, json, sys; importlib.import_module(sys.argv[1]); "
    "print(json.dumps(sorted(sys.modules)))"
)
# Loaded at a page's first request by the visitors who need them (a basket cookie, a tier, the
# log-in page), never at the import of a page that only reads the store.
NOT_FOR_SHOP_READS = (
    "webstore.basket",
    "webstore.repo.baskets",
    "webstore.checkout",
    "webstore.tax",
    "webstore.identity.steam",
    "webstore.storefront.catalog",
    "webstore.storefront.requests",
    # the storefront's wire models: a shop page builds the same data plain (storefront.shown)
    "webstore.storefront.schemas",
    "webstore.storefront.views",
    "webstore.payments",
    "stripe",
    # what only a basket, a write, the local stack or another interface needs (docs/cold-start.md)
    "webstore.basket_pricing",
    "webstore.mail",
    "webstore.local_stream",
    "webstore.repo.outbox",
    "webstore.repo.audit_log",
    "webstore.repo.account",
    "webstore.repo.users",
    "webstore.admin",
    "webstore.html.player",
    "functions.pages",
    "functions.events",
)


def loaded_by(module: str) -> set[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "shared")])}
    result = subprocess.run(
        [sys.executable, "-c", LOADED, module], capture_output=True, text=True, env=env, cwd=ROOT, check=True
    )
    return set(json.loads(result.stdout))


def _under(loaded: set[str], package: str) -> list[str]:
    return sorted(m for m in loaded if m == package or m.startswith(package + "."))


@pytest.mark.parametrize(
    "module",
    [f"functions.shop.{page}" for page in ("get_home", "get_category", "get_package", "get_page")],
)
def test_shop_read_pages_import_only_what_they_render(module: str) -> None:
    loaded = loaded_by(module)
    assert "webstore.shop.pages" in loaded and "webstore.catalog" in loaded  # the page's own code
    for package in NOT_FOR_SHOP_READS:
        assert not _under(loaded, package), f"{module} imports {_under(loaded, package)}"


def test_a_shop_form_does_import_the_basket() -> None:
    """The probe sees these modules where they are needed: a basket form loads the basket."""
    loaded = loaded_by("functions.shop.post_basket_package")
    assert "webstore.basket" in loaded and "webstore.repo.baskets" in loaded


# What a basket's storefront functions do not need: the interface's other wire shapes and their
# mappers (a basket answers with `storefront.basket_wire`), the store's players, and, for the
# read, the changes' code (identities, the request bodies).
NOT_FOR_A_BASKET = (
    "webstore.storefront.schemas",
    "webstore.storefront.views",
    "webstore.storefront.catalog",
    # the store's players: only a gift named by player id or platform id reads them
    "webstore.repo.players",
    "webstore.repo.payments",
)
NOT_FOR_THE_BASKET_READ = (
    *NOT_FOR_A_BASKET,
    "webstore.storefront.baskets",
    "webstore.storefront.requests",
    "webstore.identity",
)


@pytest.mark.parametrize(
    ("module", "not_needed"),
    [
        ("functions.storefront.get_basket", NOT_FOR_THE_BASKET_READ),
        *(
            (f"functions.storefront.{name}", NOT_FOR_A_BASKET)
            for name in (
                "create_basket",
                "add_basket_package",
                "remove_basket_package",
                "update_basket_package_quantity",
            )
        ),
    ],
)
def test_a_baskets_functions_import_only_the_basket_shapes(module: str, not_needed: tuple[str, ...]) -> None:
    loaded = loaded_by(module)
    assert "webstore.storefront.basket_wire" in loaded and "webstore.basket" in loaded
    for package in not_needed:
        assert not _under(loaded, package), f"{module} imports {_under(loaded, package)}"


@pytest.mark.parametrize(
    "module",
    [
        f"functions.storefront.{name}"
        for name in ("get_webstore", "get_pages", "get_categories", "get_packages")
    ],
)
def test_catalog_reads_load_the_basket_only_when_a_request_names_one(module: str) -> None:
    loaded = loaded_by(module)
    assert "webstore.storefront.catalog" in loaded
    for package in ("webstore.basket", "webstore.repo.baskets", "webstore.storefront.baskets"):
        assert not _under(loaded, package), f"{module} imports {_under(loaded, package)}"


def test_information_loads_only_its_own_shapes() -> None:
    """GET /information, the plugins' first call on every start: not the interface's other shapes."""
    loaded = loaded_by("functions.operator.get_information")
    assert "webstore.operator.information_wire" in loaded
    for package in ("webstore.operator.schemas", "webstore.operator.views", "webstore.repo.queue"):
        assert not _under(loaded, package), f"getInformation imports {_under(loaded, package)}"
