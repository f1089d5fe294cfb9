"""Which gateway a store pays with, per stage: a production stage refuses the sandbox unless the
catalog opts in, so no store ships handing out ranks for free."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import urlencode

import pytest

from functions.storefront import get_checkout_page, pay_checkout
from tests.integration.storefront.test_checkout import new_basket
from tests.support.demo import DemoStore, demo_catalog_data
from tests.support.invocation import Invoke
from webstore import services as services_module
from webstore.catalog_import import import_catalog, parse_catalog


@pytest.fixture
def production(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("WEBSTORE_PRODUCTION", "true")
    services_module.reset()
    yield
    services_module.reset()


def test_production_refuses_the_sandbox_of_a_store_without_keys(
    demo: DemoStore, production: None, invoke: Invoke
) -> None:
    ident = new_basket(invoke, demo)
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 409 and "not set up to take payments" in page.body
    paid = invoke(
        pay_checkout.handler,
        "POST",
        f"/checkout/{ident}/pay",
        raw_body=urlencode(
            {"attempt_key": "a" * 24, "card_number": "4242424242424242", "amount_due": "5.00"}
        ),
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    assert paid.status == 422 and "not set up to take payments" in paid.body


def test_a_store_that_opts_in_keeps_the_sandbox_in_production(
    demo: DemoStore, production: None, invoke: Invoke
) -> None:
    data = demo_catalog_data()
    data["gateways"] = {"sandbox": True}
    import_catalog(demo.table, parse_catalog(data))
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{new_basket(invoke, demo)}")
    assert page.status == 200 and "name=card_number" in page.body
