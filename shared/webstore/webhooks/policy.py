"""Which webhook URLs we are willing to POST to.

Webhook URLs are typed in by store owners, so a POST to one is a request made from inside our
network on a stranger's behalf. We allow http(s) only and refuse any host that resolves to a
loopback, private, link-local, multicast, reserved or otherwise non-global address (every address
the name resolves to is checked, and IPv4 addresses embedded in IPv6 forms are unwrapped).
The sender then connects to one of the checked addresses itself, so a DNS answer that changes
between the check and the connection (rebinding) cannot redirect the request.
`allow_private_webhooks` lifts the address rule for the local stack and tests.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
# host, port → the addresses it resolves to (strings); raises OSError when it does not resolve.
Resolver = Callable[[str, int], Sequence[str]]

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


class UrlRefused(ValueError):
    """The URL may not be used as a webhook endpoint; the message says why (safe to show)."""


@dataclass(frozen=True)
class Target:
    """A URL that passed the policy, with the addresses the sender may connect to."""

    url: str
    scheme: str
    host: str
    port: int
    path: str
    addresses: tuple[str, ...]


def system_resolver(host: str, port: int) -> list[str]:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return list(dict.fromkeys(str(info[4][0]) for info in infos))


def _embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address.teredo is not None:
        return address.teredo[1]
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: IPAddress) -> str | None:
    """Why this address may not receive webhooks, or None when it is a public unicast address."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = _embedded_ipv4(address)
        if embedded is not None:
            reason = address_refusal(embedded)
            if reason:
                return reason
    checks = (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (address.is_private, "private"),
        (address.is_reserved, "reserved"),
        (not address.is_global, "not globally routable"),
    )
    for refused, reason in checks:
        if refused:
            return f"{address} is a {reason} address"
    return None


def _split(url: str) -> tuple[SplitResult, str, int]:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as error:
        raise UrlRefused(f"not a valid URL: {error}") from None
    if parts.scheme not in ("http", "https"):
        raise UrlRefused("only http and https URLs can receive webhooks")
    if not parts.hostname:
        raise UrlRefused("the URL has no host")
    if parts.username is not None or parts.password is not None:
        raise UrlRefused("credentials in webhook URLs are not supported")
    return parts, parts.hostname, port or (443 if parts.scheme == "https" else 80)


def check_url(url: str, *, allow_private: bool, resolver: Resolver = system_resolver) -> Target:
    """The URL's target if it may receive webhooks; UrlRefused otherwise."""
    parts, host, port = _split(url)
    try:
        literal: IPAddress | None = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = list(resolver(host, port))
        except OSError:
            raise UrlRefused(f"the host {host} does not resolve") from None
        if not addresses:
            raise UrlRefused(f"the host {host} does not resolve")
    if not allow_private:
        for text in addresses:
            reason = address_refusal(ipaddress.ip_address(text.split("%", 1)[0]))
            if reason:
                raise UrlRefused(f"the host {host} is not a public address ({reason})")
    path = parts.path or "/"
    if parts.query:
        path = f"{path}?{parts.query}"
    return Target(url=url, scheme=parts.scheme, host=host, port=port, path=path, addresses=tuple(addresses))
