"""The store's sales that are running now."""

from __future__ import annotations

from webstore.operator import schemas, views
from webstore.pricing import active_sales
from webstore.repo.store import StoreRepository
from webstore.services import Services


def active_sales_of(services: Services, account_id: int) -> list[schemas.Sale]:
    store = StoreRepository(services.table).store(account_id)
    return [views.sale_view(sale) for sale in active_sales(store.sales, services.now())]
