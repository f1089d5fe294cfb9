"""Sign-in through Steam on the hosted auth page, for stores of Steam games (docs/players.md).

`GET /auth/{basket}/steam?returnUrl=` sends the player to Steam (`start`); Steam sends them
back to the same address with its assertion (`finish`), which `webstore.identity.steam`
verifies. With the store's Steam Web API key the player's persona name is read
(`persona_name`). The basket is then bound to the Steam64 id exactly as a typed username binds it
(`basket_auth.bind`), the assertion's nonce claimed in the same transaction (a replayed
assertion is refused, and nothing is written).
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote, urlsplit

from webstore.catalog import Store
from webstore.errors import Invalid
from webstore.html import PageResult
from webstore.identity.identify import identify_steam
from webstore.identity.port import NameServiceUnavailable, SteamProfiles
from webstore.identity.steam import NONCE_MAX_AGE, SteamOpenId, SteamWebApi, is_steam_store
from webstore.repo import Transaction
from webstore.repo.users import UserRepository
from webstore.sealing import open_sealed
from webstore.secret_box import SealBroken
from webstore.services import Services
from webstore.storefront.basket_auth import AuthPrompt, bind, open_auth_page
from webstore.storefront.return_urls import RETURN_URL


def steam_openid(services: Services) -> SteamOpenId:
    settings = services.settings
    return SteamOpenId(settings.steam_openid_url, settings.identity_timeout_seconds)


def callback_url(services: Services, prompt: AuthPrompt) -> str:
    """Where Steam sends the player back: this basket's Steam address, carrying its return URL."""
    base = services.settings.storefront_url.rstrip("/")
    return f"{base}/auth/{prompt.basket.ident}/steam?{RETURN_URL}={quote(prompt.return_url, safe='')}"


def realm(services: Services) -> str:
    """The OpenID realm: the storefront's origin (what Steam shows the player they sign in to)."""
    parts = urlsplit(services.settings.storefront_url)
    return f"{parts.scheme}://{parts.netloc}/"


def sign_in_url(services: Services, prompt: AuthPrompt) -> str:
    """The address of Steam's sign-in for this basket (the auth page's button)."""
    return steam_openid(services).redirect_url(callback_url(services, prompt), realm(services))


def persona_name(services: Services, store: Store, steam_id: str) -> str | None:
    """The player's persona name from Steam's Web API when the store has a key (None without
    one). A sign-in Steam verified does not fail for want of a name: when the Web API does not
    answer (or refuses the key) the player is named by the Steam64 id, as without a key."""
    profiles = _profiles(services, store)
    try:
        return profiles.persona_name(steam_id) if profiles is not None else None
    except NameServiceUnavailable:
        return None


def _profiles(services: Services, store: Store) -> SteamProfiles | None:
    """The Steam profile port with the store's Web API key (None: the store has none)."""
    if not store.steam_api_key_sealed:
        return None
    try:
        key = open_sealed(services.secrets, store.steam_api_key_sealed)
    except SealBroken:
        return None
    settings = services.settings
    return SteamWebApi(settings.steam_web_api_url, key, settings.identity_timeout_seconds)


def _steam_prompt(services: Services, basket_ident: str, return_url: str | None) -> AuthPrompt:
    prompt = open_auth_page(services, basket_ident, return_url)
    if not is_steam_store(prompt.store):
        raise Invalid("This store's players do not sign in through Steam", field="basketIdent")
    return prompt


def start(services: Services, basket_ident: str, return_url: str | None) -> PageResult:
    """No assertion yet: off to Steam."""
    prompt = _steam_prompt(services, basket_ident, return_url)
    return PageResult(redirect=sign_in_url(services, prompt))


def finish(
    services: Services, basket_ident: str, return_url: str | None, params: Mapping[str, str]
) -> PageResult:
    """Back from Steam: verify the assertion, bind the basket to the Steam64 id, claim the
    nonce (one transaction), then back to the return URL with `success=true`."""
    prompt = _steam_prompt(services, basket_ident, return_url)
    now = services.now()
    assertion = steam_openid(services).verify(params, callback_url(services, prompt), now)
    persona = persona_name(services, prompt.store, assertion.steam_id)

    def claim(tx: Transaction) -> None:
        UserRepository.add_steam_nonce(tx, assertion.nonce, now + NONCE_MAX_AGE * 2)

    target = bind(services, prompt, lambda _: identify_steam(services, assertion.steam_id, persona), claim)
    return PageResult(redirect=target)
