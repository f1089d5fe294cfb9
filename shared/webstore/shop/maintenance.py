"""Maintenance mode (docs/shop.md, "Maintenance mode"): while the owner has it on, every page
and form of the shop answers the branded maintenance page (503, `Retry-After`), except the
log-in page and form and for whoever the allow-list names: an IP address or network (CIDR) the
request comes from, or a player name the visitor's basket is logged in as (a Bedrock player's
too, spaces written as `_`). Pure rules; the
shop's pages and forms (webstore.shop.pages, webstore.shop.forms) apply them.
"""

from __future__ import annotations

import ipaddress
import re
from typing import NamedTuple

from webstore.errors import Invalid
from webstore.usernames import check_username

Network = ipaddress.IPv4Network | ipaddress.IPv6Network

MAX_ENTRIES = 50
MAX_MESSAGE = 1000
RETRY_AFTER_SECONDS = 1800  # what the 503 tells browsers and crawlers: look again in 30 minutes
IP_LIKE = re.compile(r"^[0-9.]+$")
SEPARATORS = re.compile(r"[\s,;]+")
DEFAULT_MESSAGE = "The shop is closed for maintenance. Please come back soon."
TITLE = "Back soon"
# Templates served to everyone during maintenance: the log-in page (so an allow-listed player
# can say who they are).
OPEN_TEMPLATES = frozenset({"username.html"})


class AllowList(NamedTuple):
    networks: tuple[Network, ...] = ()
    names: frozenset[str] = frozenset()  # lower case

    def admits(self, ip: str, username: str | None) -> bool:
        if username and listed_name(username) in self.names:
            return True
        try:
            address = ipaddress.ip_address(ip)
        except ValueError:
            return False
        return any(address.version == n.version and address in n for n in self.networks)


def listed_name(username: str) -> str:
    """How the list compares a player name: without regard to case, a space and `_` alike (a
    Bedrock gamertag's spaces are written `_` on the list, as Floodgate's replace-spaces does)."""
    return username.lower().replace(" ", "_")


def _player_name(entry: str) -> bool:
    """A name some store's rule takes (webstore.usernames.check_username, before the store is
    read): a Java name, or a Bedrock one under any prefix or none. The list outlives a change of
    the store's Bedrock setting, so an entry is not tied to today's prefix."""
    try:
        check_username(entry)
    except Invalid:
        return False
    return True


def parse_allow_list(text: str, *, label: str = "Allowed during maintenance") -> tuple[AllowList, str]:
    """The allow-list of `text` (entries separated by commas, spaces or new lines) and its
    normalized form (`203.0.113.7/32, 2001:db8::/32, Notch`), or Invalid naming the entry."""
    entries = [e for e in SEPARATORS.split(text.strip()) if e]
    if len(entries) > MAX_ENTRIES:
        raise Invalid(f"{label}: at most {MAX_ENTRIES} entries", field="maintenance_allow")
    networks: list[Network] = []
    names: list[str] = []
    for entry in entries:
        try:
            networks.append(ipaddress.ip_network(entry, strict=False))
            continue
        except ValueError:
            pass
        if any(c in entry for c in ":/") or (IP_LIKE.match(entry) and "." in entry):
            raise Invalid(
                f"{label}: {entry[:60]!r} is not an IP address or network (203.0.113.7, 203.0.113.0/24)",
                field="maintenance_allow",
            )
        if not _player_name(entry):
            raise Invalid(
                f"{label}: {entry[:60]!r} is neither a player name nor an IP address or network",
                field="maintenance_allow",
            )
        names.append(entry)
    shown = [str(n) for n in dict.fromkeys(networks)] + list(dict.fromkeys(names))
    allow = AllowList(tuple(dict.fromkeys(networks)), frozenset(listed_name(n) for n in names))
    return allow, ", ".join(shown)


def parse_message(text: str, *, label: str = "Maintenance message") -> str:
    """The page's message: plain text of at most MAX_MESSAGE characters, line breaks kept."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    if len(text) > MAX_MESSAGE or any(ord(c) < 32 and c != "\n" for c in text):
        raise Invalid(f"{label}: plain text of at most {MAX_MESSAGE} characters", field="maintenance_message")
    return text


def closed(maintenance: str, allow: str, ip: str, username: str | None) -> bool:
    """Whether the shop is closed to this visitor (maintenance on and the list does not name them)."""
    if not maintenance:
        return False
    try:
        allowed, _ = parse_allow_list(allow)
    except Invalid:  # stored values were checked; an unreadable list admits no one
        return True
    return not allowed.admits(ip, username)


def retry_after() -> dict[str, str]:
    return {"Retry-After": str(RETRY_AFTER_SECONDS)}
