"""The shop's look without code (docs/shop.md, "Look"): logo, favicon, colours, the hero's text,
the sale banner's text and the package layout, set in panel → Shop → Look and kept in the live
theme's item (`ShopTheme.look`): every shop page reads it in its one round trip. Saved like a
template: on condition of the revision the form read, with its audit entry, one transaction."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from webstore.catalog import Store
from webstore.repo.shop_theme import STALE, ShopLook, ShopThemeRepository
from webstore.services import Services
from webstore.shop.look_rules import LABELS, checked_look


def parse_look(fields: Mapping[str, str]) -> ShopLook:
    """The form's look, or Invalid naming the field and what it should be."""
    return ShopLook(**checked_look(fields))


def save_look(
    services: Services,
    account_id: int,
    fields: Mapping[str, str],
    *,
    seen_revision: int,
    actor: str,
    now: datetime,
) -> ShopLook:
    """Store the form's look as the shop's (Conflict if the theme changed since the form was read)."""
    from webstore.repo.audit_log import Audit  # here: every shop page reads the look (`branded`)

    look = parse_look(fields)
    repository = ShopThemeRepository(services.table)
    live = repository.live(account_id)
    if live.revision != seen_revision:
        raise STALE
    new = live.model_copy(deep=True)
    new.revision, new.changed_at, new.look = live.revision + 1, now, look
    changed = sorted(n for n in LABELS if getattr(live.look, n) != getattr(look, n))
    summary = "look: " + (", ".join(LABELS[n].lower() for n in changed) or "saved unchanged")
    repository.change(account_id, live, new, [], Audit(actor, "shop.look.save", summary, now))
    return look


def branded(store: Store, look: ShopLook) -> Store:
    """The store as the shop shows it: the look's logo and colours over the catalog's."""
    update = {n: getattr(look, n) for n in ("logo", "primary_color", "accent_color") if getattr(look, n)}
    return store.model_copy(update=update) if update else store
