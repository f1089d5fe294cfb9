"""Where a store may send a player back to: its own site (webstore_url's host), the hosts it
lists in `allowed_return_hosts`, or the platform's own hosts (the storefront's hosted pages, the
players' shop, the panel: `platform_hosts`), which a new store needs no setting for. Checked
for auth return URLs and a basket's complete/cancel URLs, so no hosted page is an open
redirect."""

from __future__ import annotations

from collections.abc import Collection
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from webstore.catalog import Store
from webstore.errors import Invalid
from webstore.settings import Settings

MAX_RETURN_URL = 2048
RETURN_URL = "returnUrl"


def _host_of(url: str) -> str | None:
    try:
        host = urlsplit(url).hostname
    except ValueError:
        return None
    return host.rstrip(".").lower() if host else None


def platform_hosts(settings: Settings) -> frozenset[str]:
    """The deployment's own hosts: the storefront (hosted pages), the shop and the panel."""
    urls = (settings.storefront_url, settings.shop_url, settings.admin_url)
    return frozenset(host for url in urls if url and (host := _host_of(url)))


def allowed_return_hosts(store: Store, own_hosts: Collection[str] = ()) -> set[str]:
    hosts = {h.strip().rstrip(".").lower() for h in store.allowed_return_hosts if h.strip()}
    hosts.update(own_hosts)
    webstore_host = _host_of(store.webstore_url) if store.webstore_url else None
    if webstore_host:
        hosts.add(webstore_host)
    return hosts


def check_return_url(
    store: Store,
    url: str | None,
    field: str = RETURN_URL,
    *,
    trusted: bool = False,
    own_hosts: Collection[str] = (),
) -> str:
    """The URL if the store may send a player there; Invalid naming `field` otherwise.
    `own_hosts`: the platform's (`platform_hosts`), always allowed.

    `trusted`: the caller proved it is the store's backend (Basic auth with the checkout API
    key), which may send players to any https URL of its choosing."""
    if not url:
        raise Invalid(f"{field} is required", field=field)
    if len(url) > MAX_RETURN_URL:
        raise Invalid(f"{field} is longer than {MAX_RETURN_URL} characters", field=field)
    if any(not (0x21 <= ord(c) <= 0x7E) or c == "\\" for c in url):
        raise Invalid(
            f"{field} must be percent-encoded: no spaces, control characters, backslashes or "
            "non-ASCII characters",
            field=field,
        )
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as error:
        raise Invalid(f"{field} is not a valid URL", field=field) from error
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        raise Invalid(f"{field} must be an absolute http or https URL", field=field)
    if "@" in parts.netloc:
        raise Invalid(f"{field} must not carry user information", field=field)
    host = (parts.hostname or "").rstrip(".").lower()
    if trusted and host and parts.scheme.lower() == "https":
        return url
    if not host or host not in allowed_return_hosts(store, own_hosts):
        raise Invalid(
            f"{field} must point to the store's own site; host {host or '(none)'!r} is not allowed: "
            "add it to the store's allowed_return_hosts setting (or create the basket from your "
            "backend with Basic auth, which may use any https URL)",
            field=field,
        )
    return url


def after_log_in(url: str) -> str:
    """The (checked) return URL with `success=true` added to its query, as the platform sends
    a player back after its hosted log-in: shops finish their log-in only when it is there."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "success"]
    return urlunsplit(parts._replace(query=urlencode([*query, ("success", "true")])))
