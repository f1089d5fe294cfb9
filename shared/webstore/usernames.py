"""The platform's one username rule: Java Edition's names, and Bedrock players' Floodgate names
(docs/decisions.md, "Bedrock names"). Pure rules, apart from the player registry
(webstore.repo.users) so that a check of a name loads no repository."""

from __future__ import annotations

import re
from enum import Enum
from typing import TYPE_CHECKING

from webstore.errors import Invalid

if TYPE_CHECKING:
    from webstore.catalog import StoreProfile

USERNAME = re.compile(r"^[A-Za-z0-9_]{3,16}$")  # Minecraft's rule for Java Edition names
# A Bedrock player's name through Geyser/Floodgate (docs/decisions.md, "Bedrock names"): the
# store's prefix (Floodgate's `username-prefix`: 1 to 8 printable ASCII characters, no space;
# symbols such as `.`, or letters such as `BE_`), then the Xbox gamertag: 1 to 16 letters,
# digits and single spaces (Floodgate writes a space as `_` unless told not to), not starting
# or ending with a space.
PREFIX_CHARS = r"[!-~]"
MAX_PREFIX = 8
BEDROCK_PREFIX = re.compile(rf"^{PREFIX_CHARS}{{1,{MAX_PREFIX}}}$")
GAMERTAG = re.compile(r"^(?=.{1,16}$)[A-Za-z0-9_]+(?: [A-Za-z0-9_]+)*$")
JAVA_RULE = "A username is 3 to 16 letters, digits or underscores"


class Bedrock(Enum):
    """Whether a name is a Bedrock player's in a store (`bedrock_kind`)."""

    NOT = "java"  # a Java player's name
    YES = "bedrock"  # a Bedrock player's: the offline identity in either mode
    MAYBE = "either"  # a valid Java name too (no prefix, or one with letters): Java first in online mode


def is_bedrock_name(username: str, prefix: str | None) -> bool:
    """`username` is a Bedrock player's under `prefix` (None: under any prefix a store may set):
    the prefix (in any case: names are one player whatever their case), then a gamertag."""
    if prefix is None:
        return any(
            BEDROCK_PREFIX.match(username[:end]) and GAMERTAG.match(username[end:])
            for end in range(1, min(MAX_PREFIX, len(username) - 1) + 1)
        )
    return (
        bool(prefix)
        and username[: len(prefix)].lower() == prefix.lower()
        and bool(GAMERTAG.match(username[len(prefix) :]))
    )


def bedrock_kind(username: str, store: StoreProfile) -> Bedrock:
    """Whose name `username` (already checked) is in this store: a Java player's (NOT), a
    Bedrock player's (YES: the offline identity in either mode), or a name valid under both
    rules (MAYBE: a Java account if the name service knows one, else a Bedrock player): a bare
    gamertag that is a Java name too in a store whose Bedrock players join without a prefix
    (`bedrock_unprefixed`), or, under a prefix with letters (`BE_`), a prefixed name that is a
    Java name too (`BE_Steve`)."""
    if store.bedrock_unprefixed:
        bedrock = bool(GAMERTAG.match(username))
    else:
        bedrock = is_bedrock_name(username, store.bedrock_prefix)
    if not bedrock:
        return Bedrock.NOT
    return Bedrock.MAYBE if USERNAME.match(username) else Bedrock.YES


def check_username(username: str, field: str = "username", store: StoreProfile | None = None) -> str:
    """The platform's one username rule: Java Edition's, or, in a store that accepts Bedrock
    players, their Floodgate name: the prefix (`bedrock_prefix`) and a gamertag, or the bare
    gamertag (`bedrock_unprefixed`). Without the store (a check before the store is read) a
    Bedrock name of any store passes (under any prefix, or none); the use case checks it again
    with the store (`webstore.identity.identify`)."""
    username = (username or "").strip()
    if USERNAME.match(username):
        return username
    if store is None:
        if is_bedrock_name(username, None) or GAMERTAG.match(username):
            return username
        raise Invalid(JAVA_RULE, field=field)
    if bedrock_kind(username, store) is not Bedrock.NOT:
        return username
    if store.bedrock_unprefixed:
        raise Invalid(
            f"{JAVA_RULE}; a Bedrock player's is their gamertag (up to 16 letters, digits or spaces)",
            field=field,
        )
    if store.bedrock_prefix:
        raise Invalid(
            f"{JAVA_RULE}; a Bedrock player's is {store.bedrock_prefix!r} then their gamertag"
            " (up to 16 letters, digits or spaces)",
            field=field,
        )
    raise Invalid(JAVA_RULE, field=field)
