"""Basket authentication: the auth link, its return-URL rule, and the hosted page's use cases.

Return-URL rule (no open redirect): `returnUrl` is required, at most 2048 printable ASCII
characters (no spaces, control characters or backslashes), an absolute `http`/`https` URL
without user info, whose host is exactly (case-insensitively) the host of the store's
`webstore_url` or one of its `allowed_return_hosts`. Any port and path are fine. The rule is
checked when the link is made and again, server side, when the page redirects.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from urllib.parse import quote

from webstore import contention, keys
from webstore.basket import Basket
from webstore.catalog import Store
from webstore.errors import Conflict, Invalid, NotFound
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.identity.identify import REGISTRATION_ATTEMPTS, Identification, identify
from webstore.repo import Transaction, plain_json
from webstore.repo.baskets import BasketReads, BasketRepository
from webstore.repo.outbox import OutboxRepository
from webstore.repo.users import AlreadyRegistered, RegistryRead, User
from webstore.services import Services
from webstore.storefront import schemas
from webstore.storefront.basket_read import load
from webstore.storefront.credentials import verified
from webstore.storefront.return_urls import RETURN_URL, after_log_in, check_return_url, platform_hosts
from webstore.storefront.theme import in_brand_of
from webstore.storefront.views import auth_link_view
from webstore.usernames import USERNAME, check_username

# --- getBasketAuthUrl ---------------------------------------------------------------------


def auth_url(services: Services, basket_ident: str, return_url: str) -> str:
    base = services.settings.storefront_url.rstrip("/")
    return f"{base}/auth/{basket_ident}?{RETURN_URL}={quote(return_url, safe='')}"


def auth_links(
    services: Services, public_token: str, basket_ident: str, return_url: str | None
) -> list[schemas.AuthLink]:
    """SPEC: 422 (not 404) when the store or the basket is unknown, on this operation only."""
    try:
        if keys.account_of(public_token) != keys.account_of(basket_ident, "Basket"):
            raise NotFound("Basket not found")
        loaded = load(services, basket_ident, None)
        store, basket = verified(loaded.store, public_token), loaded.basket
    except NotFound as error:
        field = "basketIdent" if error.detail.startswith("Basket") else "token"
        raise Invalid(error.detail, field=field) from error
    checked = check_return_url(store, return_url, own_hosts=platform_hosts(services.settings))
    if basket.complete:
        raise Invalid("The basket is complete; create a new one", field="basketIdent")
    return [auth_link_view(store, auth_url(services, basket.ident, checked))]


# --- the hosted auth page -----------------------------------------------------------------


@dataclass(frozen=True)
class AuthPrompt:
    """What the auth page shows and acts on: a store's open basket and a checked return URL
    (and, on a submission, what the registry holds for the name typed, read with them)."""

    store: Store
    basket: Basket
    return_url: str
    registry: RegistryRead | None = None


def open_auth_page(
    services: Services, basket_ident: str, return_url: str | None, username: str | None = None
) -> AuthPrompt:
    """The basket and its store in one read; with a (valid) `username`, its registry entries too."""
    named = username if username and USERNAME.match(username) else None
    loaded = load(services, basket_ident, None, BasketReads(username=named, words=True))
    in_brand_of(loaded.store, loaded.words)
    checked = check_return_url(loaded.store, return_url, own_hosts=platform_hosts(services.settings))
    if loaded.basket.complete:
        raise Conflict("This basket has already been paid for")
    return AuthPrompt(store=loaded.store, basket=loaded.basket, return_url=checked, registry=loaded.registry)


def authenticate(services: Services, prompt: AuthPrompt, username: str) -> str:
    """Bind the basket to the player `username` names in the store's identity mode and
    announce it; returns where to send them (the return URL with `success=true`).

    A basket belongs to one player: once authenticated, the same player may authenticate again
    (idempotent; the event is sent again so the shop can refill dynamic packages), another
    player may not (their codes, limits and dynamic packages would be someone else's). A
    first-seen player is registered in the basket's own write (one transaction). An unknown
    online name, or the name service down, refuses before anything is written.
    """
    username = check_username(username, store=prompt.store)
    prompt.basket.check_player(username)
    return bind(services, prompt, lambda p: identify(services, p.store, username, p.registry))


def bind(
    services: Services,
    prompt: AuthPrompt,
    who: Callable[[AuthPrompt], Identification],
    claim: Callable[[Transaction], None] | None = None,
) -> str:
    """Bind the basket to the player `who` identifies (read again and retried when another
    request registered the same player first), with `claim`'s writes in the same transaction;
    where to send the player."""
    for _ in contention.attempts(REGISTRATION_ATTEMPTS):
        player = who(prompt)
        basket, user, now = prompt.basket, player.user, services.now()
        changed = basket.authenticate(user.id, user.username, now)
        event = DomainEvent(
            type=EventType.BASKET_AUTHENTICATED,
            account_id=basket.account_id,
            subject=authenticated_subject(basket, user, now),
        )
        try:
            _save(services, basket, player, changed, event, claim)
        except AlreadyRegistered:  # registered meanwhile by another request: read theirs
            prompt = open_auth_page(services, basket.ident, prompt.return_url)
            continue
        break
    else:
        raise AlreadyRegistered()
    return after_log_in(prompt.return_url)


def _save(
    services: Services,
    basket: Basket,
    player: Identification,
    changed: bool,
    event: DomainEvent,
    claim: Callable[[Transaction], None] | None,
) -> None:
    """One write: the registration, the basket, `basket.authenticated` (webstore.repo.outbox;
    alone when the same player authenticates again and nothing else changes), and the claim."""
    tx = services.transaction()
    player.add_writes(tx)
    if changed:
        BasketRepository(services.table).add_save(tx, basket)
    OutboxRepository.add(tx, event)
    if claim is not None:
        claim(tx)
    tx.commit()


def authenticated_subject(basket: Basket, user: User, now: datetime) -> dict[str, Any]:
    """The webhook subject: the basket as receivers know it (docs/players.md)."""
    return {
        "id": basket.ident,
        "ident": basket.ident,
        "username": user.username,
        "username_id": user.id,
        "uuid": user.uuid,
        "email": basket.email,
        "ip": basket.ip,
        "country": basket.country,
        "custom": plain_json(basket.custom),
        "customer": {
            "email": basket.email,
            "ip": basket.ip,
            "country": basket.country,
            "username": {"id": user.uuid, "username": user.username},
        },
        "created_at": basket.created_at.isoformat(),
        "authenticated_at": now.isoformat(),
    }
