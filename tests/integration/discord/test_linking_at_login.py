"""Linking Discord at log-in and checkout (docs/discord.md, "What the player sees"): the hosted
checkout page's "Link Discord", the hosted auth page's "Also link my Discord account", and the
`/link` command's link (`/discord/link?store=`: log in, then Discord) — each through the
stand-in's consent page and back, the player linked and sent back where they came from."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from functions.storefront import (
    discord_link,
    get_auth_page,
    get_checkout_page,
    post_auth_page,
)
from tests.integration.storefront.test_basket_auth import FORM
from tests.integration.storefront.test_pay_prices_now import basket_with
from tests.integration.subscriptions.test_endings import steve_id
from tests.support.demo import DemoStore
from tests.support.discord_standin import StandInDiscord
from tests.support.invocation import Invoke, Response
from webstore.repo.discord import DiscordRepository

from .conftest import STEVE_DISCORD
from .test_consumer import connect
from .test_linking import standin  # noqa: F401  (the fixture)

RETURN = "http://127.0.0.1:8083/"  # the demo store's site


def through_discord(invoke: Invoke, standin: StandInDiscord, to_discord: str) -> Response:  # noqa: F811
    """Approve on the stand-in's consent page; Discord's callback to the store's link route."""
    assert to_discord.startswith(standin.authorize_url), to_discord
    standin.signed_in = STEVE_DISCORD
    consent = httpx.get(to_discord)
    approve = consent.text.split('href="')[1].split('"')[0].replace("&amp;", "&")
    back = httpx.get(f"http://127.0.0.1:{standin.port}{approve}")
    returned = {k: v[0] for k, v in parse_qs(urlsplit(back.headers["location"]).query).items()}
    return invoke(discord_link.handler, "GET", "/discord/link", query=returned)


def linked(demo: DemoStore) -> bool:
    link = DiscordRepository(demo.table).link(1, steve_id())
    return link is not None and link.discord_user_id == STEVE_DISCORD


def test_the_checkout_page_offers_the_link_and_it_comes_back_to_the_checkout(
    demo: DemoStore,
    invoke: Invoke,
    standin: StandInDiscord,  # noqa: F811
) -> None:
    ident = basket_with(invoke, demo, {"package_id": 1})
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200 and "Link Discord" not in page.body  # not connected
    connect(standin)
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200 and f"/discord/link?basket={ident}" in page.body
    started = invoke(discord_link.handler, "GET", "/discord/link", query={"basket": ident})
    assert started.status == 303
    done = through_discord(invoke, standin, started.headers["location"])
    assert done.status == 200 and "Linked to Discord as steve." in done.body
    assert f'/checkout/{ident}"' in done.body and "/receipt" not in done.body  # back to paying
    assert linked(demo)


def test_the_auth_page_links_discord_on_the_way_back_when_ticked(
    demo: DemoStore,
    invoke: Invoke,
    standin: StandInDiscord,  # noqa: F811
) -> None:
    ident = basket_with(invoke, demo)
    page = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert page.status == 200 and 'name="discord"' not in page.body  # not connected
    connect(standin)
    page = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert 'name="discord"' in page.body and "checked" not in page.body
    # the form's post may go on to Discord's consent page: the policy lets it
    assert urlsplit(standin.authorize_url).netloc in page.headers["content-security-policy"]

    unticked = urlencode({"returnUrl": RETURN, "username": "Steve"})
    plain = invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=unticked, headers=FORM)
    assert plain.status == 303 and plain.headers["location"].startswith(RETURN)  # as before
    assert not linked(demo)

    ticked = urlencode({"returnUrl": RETURN, "username": "Steve", "discord": "1"})
    posted = invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=ticked, headers=FORM)
    assert posted.status == 303
    done = through_discord(invoke, standin, posted.headers["location"])
    assert done.status == 200 and "Linked to Discord as steve." in done.body
    assert RETURN in done.body  # "Back" goes where the log-in was going
    assert linked(demo)


def test_the_link_command_s_link_logs_the_player_in_then_links(
    demo: DemoStore,
    invoke: Invoke,
    standin: StandInDiscord,  # noqa: F811
) -> None:
    connect(standin)
    opened = invoke(discord_link.handler, "GET", "/discord/link", query={"store": demo.token})
    assert opened.status == 303, opened.body
    to_auth = urlsplit(opened.headers["location"])
    asked = {k: v[0] for k, v in parse_qs(to_auth.query).items()}
    assert to_auth.path.startswith("/auth/") and asked == {"returnUrl": RETURN.rstrip("/"), "discord": "1"}
    ident = to_auth.path.removeprefix("/auth/")
    page = invoke(get_auth_page.handler, "GET", to_auth.path, query=asked)
    assert page.status == 200 and 'name="discord"' in page.body and "checked" in page.body
    form = urlencode({"returnUrl": asked["returnUrl"], "username": "Steve", "discord": "1"})
    posted = invoke(post_auth_page.handler, "POST", f"/auth/{ident}", raw_body=form, headers=FORM)
    assert posted.status == 303
    assert through_discord(invoke, standin, posted.headers["location"]).status == 200
    assert linked(demo)
    foreign = invoke(discord_link.handler, "GET", "/discord/link", query={"store": "zz-nope"})
    assert foreign.status == 404
