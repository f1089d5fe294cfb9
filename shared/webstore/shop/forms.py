"""The shop's forms: each calls one of the storefront's basket use cases (their rules, their
pricing) and answers a redirect to the page that shows the result (Post/Redirect/Get). A
refused change answers the page the form was on, with the reason and the error's status.

Where a form may send the player is fixed here (the basket, the shop's home, the hosted
checkout built from the settings) or a path of the shop itself (`next`): never an address the
request chose (no open redirect).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from urllib.parse import urlencode

from pydantic import ValidationError

from webstore.basket import Basket
from webstore.errors import Conflict, DomainError, Invalid, NotFound
from webstore.identity.steam import is_steam_store
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.shop import pages
from webstore.shop.i18n import chosen_language, html_lang
from webstore.shop.pages import ShopResult
from webstore.shop.reads import ShopData, Visitor, own_basket_ident, read_shop, shop_account
from webstore.storefront import basket_auth, basket_read, baskets
from webstore.storefront.requests import AddPackage, NewBasket, PackageQuantity, RemovePackage
from webstore.storefront.return_urls import check_return_url, platform_hosts

MAX_VARIABLES = 20
BASKET = "/basket"


def _checked(model: type[Any], values: dict[str, Any]) -> Any:
    """A storefront request body from form fields; its first mistake as Invalid naming the field."""
    try:
        return model.model_validate(values)
    except ValidationError as error:
        first = error.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ())) or "form"
        raise Invalid(f"{field}: {first.get('msg', 'invalid')}", field=field) from None


def _quantity(value: str | None, *, least: int = 1) -> int:
    text = (value or "1").strip()
    if not (text.isascii() and text.isdigit()) or not least <= int(text) <= 99_999:
        raise Invalid(f"Quantity must be a whole number from {least}", field="quantity")
    return int(text)


def safe_next(value: str | None, default: str = BASKET) -> str:
    """A path of the shop (`/category/ranks`), else `default`: never another site."""
    if not value or not value.startswith("/") or value.startswith("//") or "\\" in value:
        return default
    if any(ord(c) < 0x21 or ord(c) == 0x7F for c in value) or len(value) > 512:
        return default
    return value


def _shop_base(services: Services) -> str:
    return services.settings.shop_url.rstrip("/")


def _new_basket(services: Services, ip: str, username: str | None = None, *, token: str = "") -> Basket:
    """A basket of the shop's store whose checkout returns to the shop; without the shop's
    address among the store's return hosts, one that returns nowhere (the receipt still links
    the store's `webstore_url`). `token`: the store's public token when the caller has read it."""
    token = token or StoreRepository(services.table).store(shop_account(services)).public_token
    base = _shop_base(services)
    request = NewBasket(complete_url=f"{base}/", cancel_url=f"{base}{BASKET}", username=username)
    try:
        return baskets.create_basket(services, token, request, ip)
    except Invalid as error:
        if error.field not in ("complete_url", "cancel_url"):
            raise
        bare = NewBasket(username=username)
        return baskets.create_basket(services, token, bare, ip)


def _current(services: Services, visitor: Visitor) -> str | None:
    return own_basket_ident(shop_account(services), visitor.basket_ident)


def closed(services: Services, visitor: Visitor) -> ShopResult | None:
    """Maintenance mode: the maintenance page, changing nothing, for a visitor the shop is
    closed to; None when it is open to them. One GetItem of the live theme (the page's whole
    read only while maintenance is on)."""
    look = ShopThemeRepository(services.table).shown(shop_account(services)).look
    if not look.maintenance:
        return None
    data = read_shop(services, visitor)
    return pages.maintenance_page(services, data, visitor) if pages.closed_to(data, visitor) else None


def _done(basket: Basket, target: str = BASKET) -> ShopResult:
    return ShopResult(redirect=target, basket=basket.ident, player=basket.username_id or 0)


# --- the package page's form -------------------------------------------------------------------


def add_package(services: Services, visitor: Visitor, fields: Mapping[str, str], ip: str) -> ShopResult:
    """Add a package (quantity, its variables, a gift to another player) to the visitor's
    basket, making one when they have none (or theirs is paid for)."""
    if (shut := closed(services, visitor)) is not None:
        return shut
    package_id = fields.get("package_id", "").strip()
    try:
        variables = {k[4:]: v for k, v in fields.items() if k.startswith("var_")}
        if len(variables) > MAX_VARIABLES:
            raise Invalid("Too many variables", field="variable_data")
        target = fields.get("gift_to", "").strip() or None
        request = _checked(
            AddPackage,
            {
                "package_id": int(package_id) if package_id.isdigit() else package_id or "",
                "quantity": _quantity(fields.get("quantity")),
                "variable_data": variables or None,
                "target_username_id": target,
            },
        )
        ident = _current(services, visitor)
        try:
            if ident is None:
                raise NotFound("Basket not found")
            basket = baskets.add_package(services, None, ident, request)
        except (NotFound, Conflict) as error:
            if isinstance(error, Conflict) and "complete" not in error.detail:
                raise
            fresh = _new_basket(services, ip)  # none yet, or the old one is paid for or gone
            basket = baskets.add_package(services, None, fresh.ident, request)
    except DomainError as error:
        return pages.package(services, visitor, package_id, error=error.detail, status=error.status)
    return _done(basket, safe_next(fields.get("next")))


# --- the basket page's forms -------------------------------------------------------------------


def _basket_change(
    services: Services, visitor: Visitor, change: Callable[[str], Basket], fields: Mapping[str, str]
) -> ShopResult:
    if (shut := closed(services, visitor)) is not None:
        return shut
    try:
        ident = _current(services, visitor)
        if ident is None:
            raise NotFound("Your basket is empty: add a package first")
        basket = change(ident)
    except DomainError as error:
        return pages.basket(services, visitor, error=error.detail, status=error.status)
    return _done(basket, safe_next(fields.get("next")))


def set_quantity(services: Services, visitor: Visitor, fields: Mapping[str, str]) -> ShopResult:
    def change(ident: str) -> Basket:
        request = _checked(
            PackageQuantity,
            {
                "quantity": _quantity(fields.get("quantity"), least=0),
                "target_username_id": fields.get("target") or None,
            },
        )
        return baskets.update_quantity(services, None, ident, fields.get("package_id", ""), request)

    return _basket_change(services, visitor, change, fields)


def remove(services: Services, visitor: Visitor, fields: Mapping[str, str]) -> ShopResult:
    def change(ident: str) -> Basket:
        package_id = fields.get("package_id", "").strip()
        request = _checked(
            RemovePackage,
            {
                "package_id": int(package_id) if package_id.isdigit() else package_id,
                "target_username_id": fields.get("target") or None,
            },
        )
        return baskets.remove_package(services, None, ident, request)

    return _basket_change(services, visitor, change, fields)


def _code(fields: Mapping[str, str], what: str) -> str:
    code = fields.get("code", "").strip()
    if not code or len(code) > 64:
        raise Invalid(f"Enter a {what} (at most 64 characters)", field="code")
    return code


def coupon(services: Services, visitor: Visitor, fields: Mapping[str, str]) -> ShopResult:
    removing = fields.get("action") == "remove"

    def change(ident: str) -> Basket:
        code = _code(fields, "coupon code")
        if removing:
            return baskets.remove_coupon(services, None, ident, code)
        return baskets.apply_coupon(services, None, ident, code)

    return _basket_change(services, visitor, change, fields)


def giftcard(services: Services, visitor: Visitor, fields: Mapping[str, str]) -> ShopResult:
    removing = fields.get("action") == "remove"

    def change(ident: str) -> Basket:
        number = _code(fields, "gift card number")
        if removing:
            return baskets.remove_giftcard(services, None, ident, number)
        return baskets.apply_giftcard(services, None, ident, number)

    return _basket_change(services, visitor, change, fields)


def creator_code(services: Services, visitor: Visitor, fields: Mapping[str, str]) -> ShopResult:
    removing = fields.get("action") == "remove"

    def change(ident: str) -> Basket:
        if removing:
            return baskets.remove_creator_code(services, None, ident, fields.get("code") or None)
        return baskets.apply_creator_code(services, None, ident, _code(fields, "creator code"))

    return _basket_change(services, visitor, change, fields)


# --- logging in, out, checking out -------------------------------------------------------------


def log_in(services: Services, visitor: Visitor, fields: Mapping[str, str], ip: str) -> ShopResult:
    """Log in by username (as on Tebex): the visitor's basket becomes the player's (the
    storefront's basket authentication: identity mode, registration, `basket.authenticated`),
    or a new basket is made for them."""
    username = fields.get("username", "").strip()
    target = safe_next(fields.get("next"), "/")
    try:
        if not username:
            raise Invalid("Enter your username", field="username")
        ident = _current(services, visitor)
        if ident is not None:
            try:
                return_url = f"{_shop_base(services)}{BASKET}"
                prompt = basket_auth.open_auth_page(services, ident, return_url, username)
                basket_auth.authenticate(services, prompt, username)
                basket = basket_read.get_basket(services, None, ident)
                return _done(basket, target)
            except (NotFound, Conflict) as error:
                if isinstance(error, Conflict) and "paid" not in error.detail:
                    raise
        basket = _new_basket(services, ip, username)
    except DomainError as error:
        return pages.login(
            services, visitor, error=error.detail, username=username, status=error.status, next_path=target
        )
    return _done(basket, target)


LOGIN = "/login"
STEAM_LOGIN = "/login/steam"
HOSTED = "hosted"  # the look's `login`: players log in on the hosted auth page


def hosted_login(data: ShopData) -> bool:
    """The store logs its players in on the hosted auth page (panel → Shop → Look, "Player
    log-in"); a Steam store's players sign in through Steam from the shop's own page whatever
    it says (the hosted page would only show the same Steam button)."""
    return data.theme.look.login == HOSTED and not is_steam_store(data.store)


def login_page(services: Services, visitor: Visitor, next_path: str | None, ip: str) -> ShopResult:
    """GET /login. On the shop's own page: the username form (a Steam store's: its Steam
    button). On the hosted auth page: 303 to it for the visitor's open basket (a new one when
    they have none), its return URL this page with `next`; a visitor whose basket has a player
    (back from the hosted page, or logged in already) goes on to `next`, the player's cookie
    set. One round trip, and the storefront's basket creation when a basket is made."""
    target = safe_next(next_path, "/")
    data = read_shop(services, visitor)
    if not hosted_login(data):
        return pages.login(services, visitor, next_path=target, data=data)
    if target.partition("?")[0].startswith(LOGIN):  # never back here: it would go round
        target = "/"
    basket = data.basket
    is_open = basket is not None and not (basket.complete or basket.paid)
    if basket is not None and is_open and basket.username_id:
        return _done(basket, target)
    try:
        back = f"{_shop_base(services)}{LOGIN}?{urlencode({'next': target})}"
        checked = check_return_url(data.store, back, own_hosts=platform_hosts(services.settings))
        if basket is None or not is_open:
            basket = _new_basket(services, ip, token=data.store.public_token)
        redirect = basket_auth.auth_url(services, basket.ident, checked)
    except DomainError as error:
        return pages.error_page(services, data, visitor, error)
    return ShopResult(redirect=redirect, basket=basket.ident, player=0)


def steam_log_in(services: Services, visitor: Visitor, fields: Mapping[str, str], ip: str) -> ShopResult:
    """A Steam store's log-in: the visitor's basket (a new one when they have none open) is
    signed in on the hosted Steam sign-in (webstore.storefront.steam_sign_in), which sends the
    player back to `steam_logged_in`."""
    target = safe_next(fields.get("next"), "/")
    try:
        basket = _visitors_basket(services, visitor)
        if basket is None or basket.complete or basket.paid:
            basket = _new_basket(services, ip)
        back = f"{_shop_base(services)}{STEAM_LOGIN}?{urlencode({'next': target})}"
        hosted = f"{services.settings.storefront_url.rstrip('/')}/auth/{basket.ident}/steam"
        redirect = f"{hosted}?{urlencode({'returnUrl': back})}"
    except DomainError as error:
        return pages.login(services, visitor, error=error.detail, status=error.status, next_path=target)
    return ShopResult(redirect=redirect, basket=basket.ident, player=basket.username_id or 0)


def _visitors_basket(services: Services, visitor: Visitor) -> Basket | None:
    ident = _current(services, visitor)
    try:
        return basket_read.get_basket(services, None, ident) if ident is not None else None
    except NotFound:  # expired
        return None


def steam_logged_in(services: Services, visitor: Visitor, next_path: str | None) -> ShopResult:
    """Back from the hosted Steam sign-in (`?success=true`): the visitor's basket is the
    player's now; on to `next`. A basket still without a player: the log-in page says so."""
    target = safe_next(next_path, "/")
    basket = _visitors_basket(services, visitor)
    if basket is None or basket.username_id is None:
        error = Invalid("The Steam sign-in did not finish: sign in through Steam again", field="steam")
        return pages.login(services, visitor, error=error.detail, status=error.status, next_path=target)
    return _done(basket, target)


def log_out(services: Services, visitor: Visitor) -> ShopResult:
    """Forget the basket and the player (the basket itself stays until it expires)."""
    del services, visitor
    return ShopResult(redirect="/", basket="", player=0)


def check_out(services: Services, visitor: Visitor) -> ShopResult:
    """To the hosted checkout of the visitor's basket (its address from the settings)."""
    if (shut := closed(services, visitor)) is not None:
        return shut
    try:
        ident = _current(services, visitor)
        if ident is None:
            raise Invalid("Your basket is empty: add a package first", field="basket")
        basket = basket_read.get_basket(services, None, ident)
        if not basket.lines:
            raise Invalid("Your basket is empty: add a package first", field="basket")
        if basket.complete or basket.paid:
            raise Conflict("This basket is paid for; start a new one")
        if not basket.username:  # the hosted checkout pays for a player's basket only
            return ShopResult(redirect=f"/login?next={BASKET}")
    except DomainError as error:
        return pages.basket(services, visitor, error=error.detail, status=error.status)
    # The switcher's pick goes along (the checkout remembers it for the receipt and after).
    picked = chosen_language(visitor.language)
    language = f"?lang={html_lang(picked)}" if picked else ""
    return ShopResult(
        redirect=f"{services.settings.storefront_url.rstrip('/')}/checkout/{basket.ident}{language}"
    )


# --- the language switcher ---------------------------------------------------------------------


def switch_language(language: str | None, next_path: str | None) -> ShopResult:
    """The switcher's link (`GET /language?lang=de&next=/basket`): remember the language in the
    visitor's `shop_lang` cookie and go back to the page (a path of the shop, else the home
    page). A language the shop does not have is refused (404), nothing remembered."""
    code = chosen_language(language)
    if not code:
        raise NotFound("This shop does not speak that language")
    return ShopResult(redirect=safe_next(next_path, "/"), language=html_lang(code))
