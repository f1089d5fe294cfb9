"""GET /sidebar: the store's configured sidebar modules, in order, each with its data.

Shapes (COMPAT names the modules only; decided in docs/players.md): every module is
`{type, title, order, data}`; `data` is the module's object (`schemas.Module`), or null when
there is nothing to show (no customer this month yet, a goal or package that is gone or disabled).

Round trips: one Query (goals + stats + store + categories). The featured package(s) are named
by the store item that Query returns; an instance that served this store's sidebar before reads
the ids it saw then beside the Query (one round trip), else, or for an id it did not see, one
BatchGetItem after it (two).
"""

from __future__ import annotations

from webstore import keys
from webstore.repo import start_read
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.catalog import pricing_context
from webstore.storefront.credentials import verified
from webstore.storefront.views import MAX_RECENT_PAYMENTS, SidebarViews, int_setting

__all__ = ["MAX_RECENT_PAYMENTS", "get_sidebar"]

# Which packages each store's sidebar featured when this instance last served it (the ids only,
# never the packages): read beside the sidebar's Query and checked against the store item that
# Query returns; an id not guessed is read after it. Bounded: an instance serves many stores.
MAX_STORES_REMEMBERED = 1024
_featured_seen: dict[int, frozenset[int]] = {}


def get_sidebar(services: Services, public_token: str) -> list[schemas.Module]:
    account_id = keys.account_of(public_token)
    repository = StoreRepository(services.table)
    guessed = _featured_seen.get(account_id, frozenset())
    early = start_read(repository.packages, account_id, set(guessed)) if guessed else None
    view = repository.sidebar_with_categories(account_id)
    verified(view.store, public_token)
    featured_ids = {
        i
        for m in view.store.sidebar
        if m.type == "featured_package" and (i := int_setting(m, "package_id")) and 1 <= i <= keys.INT32_MAX
    }
    featured = {i: p for i, p in (early.result() if early else {}).items() if i in featured_ids}
    featured.update(repository.packages(account_id, featured_ids - guessed))
    _remember_featured(account_id, frozenset(featured_ids))
    return SidebarViews(view, featured, pricing_context(services, view)).modules()


def _remember_featured(account_id: int, package_ids: frozenset[int]) -> None:
    if not package_ids:
        _featured_seen.pop(account_id, None)
        return
    if account_id not in _featured_seen and len(_featured_seen) >= MAX_STORES_REMEMBERED:
        _featured_seen.pop(next(iter(_featured_seen)))  # the oldest
    _featured_seen[account_id] = package_ids
