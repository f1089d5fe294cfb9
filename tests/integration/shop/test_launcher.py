"""The checkout launcher (`GET /tebex.js`) through its handler: the script with the store's
settings in place (the storefront's address, the store's public token), cacheable for minutes,
a 404 when the store is closed."""

from __future__ import annotations

import json
import re

from functions.shop import get_launcher
from tests.support.demo import DemoStore
from tests.support.shop import ShopClient
from webstore import keys
from webstore.services import get_services


def test_the_launcher_carries_the_storefront_and_the_stores_token(
    demo: DemoStore, player: ShopClient
) -> None:
    served = player.get(get_launcher.handler, "/tebex.js")
    assert served.status == 200, served.body
    assert served.headers["content-type"].startswith("text/javascript")
    assert served.headers["cache-control"] == "public, max-age=300"
    assert served.headers["x-content-type-options"] == "nosniff"
    found = re.search(r"\}\)\((\{.*\})\);\s*$", served.body)
    assert found, served.body[-300:]
    settings = json.loads(found.group(1))
    assert settings == {"storefront": get_services().settings.storefront_url.rstrip("/"), "token": demo.token}
    assert "WEBSTORE_LAUNCHER)" not in served.body
    for call in ("init:", "launch:", "on:", "close:", '"payment:complete"'):
        assert call in served.body  # Tebex.js's checkout contract


def test_a_closed_store_serves_no_launcher(demo: DemoStore, player: ShopClient) -> None:
    demo.table.update(keys.key(keys.store_pk(1), keys.STORE_ITEM), "SET disabled = :t", values={":t": True})
    served = player.get(get_launcher.handler, "/tebex.js")
    assert served.status == 404 and "closed" in served.body
