"""Panel → Settings → Tax through the real handlers: the EU standard rates as the starting point,
a save (the store's tax in the catalog file, the rest of the store kept), a refused one shown
again as typed, the store settings form leaving the tax alone, and the export round trip."""

from __future__ import annotations

from decimal import Decimal as D

from functions.admin import get_store_settings, get_tax_settings, save_store_settings, save_tax_settings
from tests.integration.admin.test_catalog_handlers import revision_of
from tests.support.demo import DemoStore
from tests.support.panel import signed_in
from webstore.admin.roles import Role
from webstore.catalog import TaxCalculation, TaxMode
from webstore.catalog_export import catalog_document, export_catalog
from webstore.repo.store import StoreRepository

A = 1


def test_the_owner_sets_rates_by_country_and_they_round_trip_through_the_catalog_file(
    demo: DemoStore,
) -> None:
    owner = signed_in(Role.OWNER)
    page = owner.get(get_tax_settings.handler, "/settings/tax")
    assert page.status == 200, page.body
    assert "FR 20" in page.body and "DE 19" in page.body and "European Commission" in page.body
    fields = {
        "revision": revision_of(page.body),
        "mode": "exclusive",
        "calculation": "manual",
        "rate": "0",
        "origin_country": "DE",
        "reverse_charge": "on",
        "rates": "FR 20\nde: 19\nHU=27%\n\n",
    }
    saved = owner.post(save_tax_settings.handler, "/settings/tax", fields)
    assert saved.status == 303 and saved.headers["location"] == "/settings/tax?done=Saved", saved.body
    store = StoreRepository(demo.table).store(A)
    assert store.tax.mode is TaxMode.EXCLUSIVE and store.tax.calculation is TaxCalculation.MANUAL
    assert store.tax.rates == {"FR": D("20"), "DE": D("19"), "HU": D("27")}
    assert store.tax.origin_country == "DE" and store.tax.reverse_charge
    assert store.name == "Demo Craft"  # the rest of the store kept

    exported = catalog_document(export_catalog(demo.table, A))["store"]["tax"]
    assert exported["calculation"] == "manual" and exported["rates"]["HU"] in ("27", 27, "27.0000")

    # The store settings form no longer carries the tax: saving it leaves the tax as it is.
    settings = owner.get(get_store_settings.handler, "/settings")
    assert 'href="/settings/tax"' in settings.body
    again = owner.post(
        save_store_settings.handler,
        "/settings",
        {"revision": revision_of(settings.body), "name": "Renamed", "currency": "USD"},
    )
    assert again.status == 303, again.body
    assert StoreRepository(demo.table).store(A).tax == store.tax


def test_a_bad_rate_line_is_refused_with_what_was_typed(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    page = owner.get(get_tax_settings.handler, "/settings/tax")
    before = StoreRepository(demo.table).store(A).tax
    fields = {
        "revision": revision_of(page.body),
        "mode": "inclusive",
        "calculation": "manual",
        "rate": "0",
        "origin_country": "",
        "rates": "FR 20\nFrance twenty",
    }
    refused = owner.post(save_tax_settings.handler, "/settings/tax", fields)
    assert refused.status == 422 and "line 2" in refused.body and "France twenty" in refused.body
    over = owner.post(save_tax_settings.handler, "/settings/tax", {**fields, "rates": "FR 120"})
    assert over.status == 422, over.body
    assert StoreRepository(demo.table).store(A).tax == before
