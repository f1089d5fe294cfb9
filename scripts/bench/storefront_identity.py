"""Online-mode identity scenarios for scripts/bench_round_trips.py: a second store (account 2)
in Minecraft online mode, names resolved by the stand-in name service on 127.0.0.1
(tests/support/name_service.py). The lookup is an HTTP call, not a DynamoDB round trip."""

from __future__ import annotations

import atexit
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any
from urllib.parse import urlencode

from functions.storefront import create_basket, post_auth_page
from tests.support.baskets import seed_basket
from tests.support.demo import import_other_store
from tests.support.name_service import JEB, NOTCH, running_name_service, set_online_mode
from webstore import services

ACCOUNT = 2
RETURN = "http://localhost:3000/basket"
_running = ExitStack()  # the stand-in serves until the process ends
atexit.register(_running.close)  # stopped while its thread still runs (not by the GC at exit)


def setup(ctx: dict[str, Any]) -> None:
    stand_in = _running.enter_context(running_name_service(NOTCH, JEB))
    stand_in.add("0f0e0d0c0b0a09080706050403020100", "Newcomer2")
    stand_in.add("00112233445566778899aabbccddeeff", "Returning2")
    live = services.get_services()
    live.settings = live.settings.model_copy(update={"identity_base_url": stand_in.base_url})
    other = import_other_store(ctx["table"])
    set_online_mode(ctx["table"], ACCOUNT)
    ctx["online_base"] = f"/api/accounts/{other.public_token}"


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    base = ctx["online_base"]
    form = {"content-type": "application/x-www-form-urlencoded"}

    def auth(username: str) -> dict[str, Any]:
        return {"raw_body": urlencode({"username": username, "returnUrl": RETURN}), "headers": form}

    def basket() -> str:
        return seed_basket(ctx["table"], ACCOUNT).ident

    yield (
        "online: createBasket (account first seen)",
        create_basket.handler,
        "POST",
        f"{base}/baskets",
        {"body": {"username": "notch"}},
    )
    yield (
        "online: createBasket (name cached)",
        create_basket.handler,
        "POST",
        f"{base}/baskets",
        {"body": {"username": "Notch"}},
    )
    yield (
        "online: auth page (POST, first-time)",
        post_auth_page.handler,
        "POST",
        f"/auth/{basket()}",
        auth("newcomer2"),
    )
    yield (
        "online: auth page (POST, name cached)",
        post_auth_page.handler,
        "POST",
        f"/auth/{basket()}",
        auth("Newcomer2"),
    )
    yield (
        "online: auth page (POST, unknown name)",
        post_auth_page.handler,
        "POST",
        f"/auth/{basket()}",
        auth("Nobody_here"),
    )
