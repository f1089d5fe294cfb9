"""GET /sidebar: the store's configured sidebar modules, in order, each with its data.

Shapes (COMPAT names the modules only; decided in docs/players.md): every module is
`{type, title, order, data}`; `data` is the module's object (`schemas.Module`), or null when
there is nothing to show (no customer this month yet, a goal or package that is gone or disabled).

Round trips: one Query (goals + stats + store + categories); a store that features a package
adds one BatchGetItem for the featured package(s), which can only be named once the store item is read.
"""

from __future__ import annotations

from webstore import keys
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.catalog import pricing_context
from webstore.storefront.credentials import verified
from webstore.storefront.views import MAX_RECENT_PAYMENTS, SidebarViews, int_setting

__all__ = ["MAX_RECENT_PAYMENTS", "get_sidebar"]


def get_sidebar(services: Services, public_token: str) -> list[schemas.Module]:
    account_id = keys.account_of(public_token)
    repository = StoreRepository(services.table)
    view = repository.sidebar_with_categories(account_id)
    verified(view.store, public_token)
    featured_ids = {
        i
        for m in view.store.sidebar
        if m.type == "featured_package" and (i := int_setting(m, "package_id")) and 1 <= i <= keys.INT32_MAX
    }
    featured = repository.packages(account_id, featured_ids)
    return SidebarViews(view, featured, pricing_context(services, view)).modules()
