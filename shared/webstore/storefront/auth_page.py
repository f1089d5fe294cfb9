"""The hosted auth page: the username form, and its two use cases (show it, submit it).

Rendered from templates/hosted/auth.html in the store's brand (`webstore.html.player`). Forms
may post only to the page itself and redirect only to the checked return URL's origin. A failed
submission shows the form again with the reason; any other refusal is the common problem page
(functions/pages.py).
"""

from __future__ import annotations

from webstore import keys
from webstore.discord import linking
from webstore.errors import DomainError, Invalid
from webstore.html import PageResult
from webstore.html.player import page
from webstore.identity.steam import is_steam_store
from webstore.repo import start_read
from webstore.repo.discord import DiscordRepository
from webstore.services import Services
from webstore.storefront import steam_sign_in
from webstore.storefront.basket_auth import AuthPrompt, authenticate, open_auth_page
from webstore.storefront.basket_read import load
from webstore.storefront.theme import brand

TITLE = "Cannot log in to this basket"  # of the page that says why there is no form


def form_page(
    prompt: AuthPrompt,
    *,
    username: str = "",
    error: str | None = None,
    steam_url: str = "",
    discord: bool = False,
    link_discord: bool = False,
) -> str:
    """The username form (templates/hosted/auth.html); with `error`, shown again after a
    refused submission; with `steam_url` (a Steam store's), the Steam sign-in button instead;
    with `discord` (the store connected Discord), the "Also link my Discord account" box
    (ticked: `link_discord`)."""
    return page(
        "hosted/auth.html",
        brand=brand(prompt.store),
        title=f"Log in to {prompt.store.name}",
        store=prompt.store.name,
        return_url=prompt.return_url,
        username=username[:64],
        error=error or "",
        steam_url=steam_url,
        discord=discord,
        link_discord=link_discord,
        bedrock_prefix=prompt.store.bedrock_prefix,
        bedrock_unprefixed=prompt.store.bedrock_unprefixed,
    )


def policy(prompt: AuthPrompt, *, discord_url: str = "") -> str:
    """The form posts to the page itself and redirects to the return URL's origin (and, when
    the player may link Discord on the way, to Discord's consent page)."""
    return brand(prompt.store).policy(prompt.return_url, *([discord_url] if discord_url else []))


def show(
    services: Services, basket_ident: str, return_url: str | None, *, link_discord: bool = False
) -> PageResult:
    """GET: the form, for an open basket and a return URL the store allows (`link_discord`:
    the Discord box ticked, as `/discord/link?store=` asks)."""
    discord = start_read(DiscordRepository(services.table).app, keys.account_of(basket_ident, "Basket"))
    prompt = open_auth_page(services, basket_ident, return_url)
    steam_url = steam_sign_in.sign_in_url(services, prompt) if is_steam_store(prompt.store) else ""
    linkable = discord.result() is not None and not steam_url
    html = form_page(prompt, steam_url=steam_url, discord=linkable, link_discord=linkable and link_discord)
    # The form's submission may go on to Discord's consent page (form-action covers redirects).
    discord_url = services.settings.discord_authorize_url if linkable else ""
    return PageResult(html=html, csp=policy(prompt, discord_url=discord_url))


def submit(
    services: Services,
    basket_ident: str,
    return_url: str | None,
    username: str,
    *,
    link_discord: bool = False,
) -> PageResult:
    """POST: bind the basket to the player, then back to the return URL (by way of Discord's
    consent page when they ticked "Also link my Discord account"); a refused username shows
    the form again."""
    discord = start_read(DiscordRepository(services.table).app, keys.account_of(basket_ident, "Basket"))
    prompt = open_auth_page(services, basket_ident, return_url, username.strip())
    if is_steam_store(prompt.store):  # its page has no name form: players sign in through Steam
        raise Invalid("Players of this store sign in through Steam, not with a typed name", field="username")
    app = discord.result()
    csp = policy(prompt, discord_url=services.settings.discord_authorize_url if app else "")
    try:
        target = authenticate(services, prompt, username)
    except DomainError as error:
        # A refused name (unknown, taken basket) or the name service down: the form again,
        # saying why, with the status (503 tells the player's browser nothing was done).
        if isinstance(error, Invalid) or error.field == "username":
            form = form_page(
                prompt,
                username=username,
                error=error.detail,
                discord=app is not None,
                link_discord=link_discord,
            )
            return PageResult(error.status, form, csp=csp)
        raise
    if app is not None and link_discord:
        basket = load(services, basket_ident, None).basket  # as logged in
        linked = linking.to_discord(services, basket, prompt.store, app, services.now(), back=target)
        return PageResult(redirect=linked.redirect, csp=csp)
    return PageResult(redirect=target, csp=csp)
