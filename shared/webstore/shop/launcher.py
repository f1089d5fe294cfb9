"""The checkout launcher for sites built on Tebex.js (docs/shop.md, "The checkout launcher"):
`static/tebex.js` served by the shop with the store's settings filled in (the storefront's
address and the store's public token, which the launcher needs to read whether the basket is
paid). A stable address (`/tebex.js`), cached for minutes: third-party sites link it as they
linked Tebex's script, so it cannot carry a content hash."""

from __future__ import annotations

import json
from functools import cache

from webstore.errors import NotFound
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.shop.assets import STATIC
from webstore.shop.reads import shop_account

SOURCE = STATIC / "tebex.js"
PLACEHOLDER = "})(WEBSTORE_LAUNCHER);"
CACHE_CONTROL = "public, max-age=300"
MEDIA_TYPE = "text/javascript; charset=utf-8"


@cache
def _source() -> str:
    text = SOURCE.read_text()
    assert text.count(PLACEHOLDER) == 1, "tebex.js must end with its settings' placeholder"
    return text


def launcher_script(services: Services) -> str:
    """The launcher for this deployment's store (NotFound: no shop, or the store is closed)."""
    store = StoreRepository(services.table).store(shop_account(services))
    if store.disabled:
        raise NotFound("This store is closed")
    settings = {"storefront": services.settings.storefront_url.rstrip("/"), "token": store.public_token}
    literal = json.dumps(settings).replace("<", "\\u003c")  # a JS literal, safe in any context
    return _source().replace(PLACEHOLDER, "})(" + literal + ");")
