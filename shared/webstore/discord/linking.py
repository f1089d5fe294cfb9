"""A player links their Discord account: OAuth2 with the store's application, state and PKCE.

`start` ("Link Discord" on the receipt or the checkout page, or the hosted auth page's "Also link
my Discord account"): the basket the player logged in to names them; a one-use state (the
account's prefix, then 32 random hex digits, as public tokens are) and a PKCE verifier are kept
ten minutes (repo.discord), and the player goes to Discord's consent page with the S256
challenge. `finish` (Discord sends them back to `/discord/link`): the state is taken once
(a replayed or forged one is refused), the code is exchanged with the verifier, `/users/@me`
names the account, the link is stored (the access token sealed, kept only with `guilds.join`),
and the player's roles are applied at once (added to the server with them when they gave
`guilds.join` and are not a member).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import datetime, timedelta
from urllib.parse import urlencode

from webstore import keys
from webstore.basket import Basket
from webstore.catalog import Store
from webstore.checkout import pages
from webstore.checkout.checkout import HOSTED_PAGE, checkout_url, receipt_url
from webstore.discord import DiscordRefused, DiscordRetryLater
from webstore.discord.app import api_of
from webstore.discord.sync import sync_player
from webstore.errors import Invalid, NotFound
from webstore.html import PageResult
from webstore.repo.discord import DiscordApp, DiscordLink, DiscordRepository, LinkState
from webstore.repo.store import StoreRepository
from webstore.sealing import seal
from webstore.services import Services
from webstore.storefront.basket_read import load
from webstore.storefront.baskets import create_basket
from webstore.storefront.credentials import verified
from webstore.storefront.requests import NewBasket
from webstore.storefront.theme import in_brand_of

STATE_LIFETIME = timedelta(minutes=10)


def link_url(services: Services) -> str:
    """The link route: `?basket=` starts a link, Discord calls it back with `?code=&state=`."""
    return f"{services.settings.storefront_url}/discord/link"


def callback_url(services: Services) -> str:
    return link_url(services)


def challenge_of(verifier: str) -> str:
    return base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()


def start(services: Services, basket_ident: str, now: datetime) -> PageResult:
    """`?basket=`: from the receipt (back to it) or the checkout page (back to it)."""
    loaded = load(services, basket_ident, None, HOSTED_PAGE)
    basket, store = loaded.basket, loaded.store
    in_brand_of(store, loaded.words)
    app = DiscordRepository(services.table).app(basket.account_id)
    if app is None:
        raise NotFound("This store has not connected Discord")
    back = receipt_url(services, basket_ident) if basket.complete else checkout_url(services, basket_ident)
    return to_discord(services, basket, store, app, now, back=back)


def start_for_store(services: Services, public_token: str, ip: str) -> PageResult:
    """`?store=` (the `/link` command's link): the player is not known yet, so a basket of the
    store is opened for them (returning to the store's site) and they log in on the hosted auth
    page with "Also link my Discord account" ticked, which then sends them to Discord."""
    store, words = StoreRepository(services.table).store_and_words(keys.account_of(public_token))
    in_brand_of(verified(store, public_token), words)
    if DiscordRepository(services.table).app(store.id) is None:
        raise NotFound("This store has not connected Discord")
    if not store.webstore_url:
        raise Invalid("This store has no site to return to: link Discord at checkout", field="store")
    home = store.webstore_url
    basket = create_basket(services, public_token, NewBasket(complete_url=home, cancel_url=home), ip)
    query = urlencode({"returnUrl": home, "discord": "1"})
    return PageResult(redirect=f"{services.settings.storefront_url}/auth/{basket.ident}?{query}")


def to_discord(
    services: Services, basket: Basket, store: Store, app: DiscordApp, now: datetime, *, back: str
) -> PageResult:
    """To Discord's consent page for the player `basket` is logged in to, with a one-use state
    and the PKCE challenge; `back` is where the finished page's "Back" leads."""
    if basket.username_id is None:
        raise Invalid("Log in with your username before linking Discord", field="basket_ident")
    state = keys.new_public_token(basket.account_id)
    verifier = secrets.token_urlsafe(48)
    DiscordRepository(services.table).save_state(
        basket.account_id,
        LinkState(
            state=state,
            username_id=basket.username_id,
            verifier=verifier,
            basket_ident=basket.ident,
            until=now + STATE_LIFETIME,
            back=back,
        ),
    )
    scopes = "identify guilds.join" if app.guilds_join else "identify"
    query = {
        "client_id": app.client_id,
        "response_type": "code",
        "redirect_uri": callback_url(services),
        "scope": scopes,
        "state": state,
        "code_challenge": challenge_of(verifier),
        "code_challenge_method": "S256",
        "prompt": "consent",
    }
    return PageResult(redirect=f"{services.settings.discord_authorize_url}?{urlencode(query)}")


def finish(services: Services, code: str, state: str, error: str, now: datetime) -> PageResult:
    account_id = keys.account_of(state, "Link")
    store, words = StoreRepository(services.table).store_and_words(account_id)
    in_brand_of(store, words)
    repo = DiscordRepository(services.table)
    taken = repo.take_state(account_id, state)
    if taken is None or taken.until <= now:
        raise Invalid("This link has expired or was used: start again from your receipt", field="state")
    receipt = taken.back or receipt_url(services, taken.basket_ident)
    if error or not code:
        text = "Discord was not linked: you declined on Discord's page."
        return PageResult(
            200, pages.message_page("Discord", text, link=receipt, link_text="Back", store=store)
        )
    app = repo.app(account_id)
    if app is None:
        raise NotFound("This store has not connected Discord")
    api = api_of(services, app)
    try:
        token = api.exchange_code(code, callback_url(services), taken.verifier)
        user = api.current_user(token.access_token)
    except DiscordRefused as exc:
        raise Invalid("Discord refused the link: start again from your receipt", field="code") from exc
    except DiscordRetryLater as exc:
        raise Invalid("Discord could not be reached: try again in a minute", field="code") from exc
    joins = "guilds.join" in token.scopes
    previous = repo.link(account_id, taken.username_id)
    link = DiscordLink(
        username_id=taken.username_id,
        discord_user_id=user.id,
        discord_username=user.display_name,
        access_token_sealed=seal(services.secrets, token.access_token) if joins else "",
        scopes=sorted(token.scopes),
        linked_at=now,
    )
    repo.save_link(account_id, link, previous)
    result = sync_player(services, api, account_id, taken.username_id, now, trigger="link")
    granted = sum(1 for e in result.entries if e.status == "done")
    text = f"Linked to Discord as {user.display_name}." + (
        f" {granted} role(s) granted." if granted else " Your roles follow your purchases."
    )
    return PageResult(200, pages.message_page("Discord", text, link=receipt, link_text="Back", store=store))
