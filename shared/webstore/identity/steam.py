"""Sign-in through Steam (OpenID 2.0) for stores of Steam games (docs/players.md, "Steam").

The player is sent to Steam's OpenID endpoint (`checkid_setup`, identifier_select) with our
callback as `return_to` and our origin as `realm`. Steam sends them back with a positive
assertion, which is trusted only after Steam itself confirms it: the assertion's fields are
posted back with `openid.mode=check_authentication` and Steam answers `is_valid:true` (Steam
publishes no association keys to check a signature with, so this is the only safe check).
Before that round trip the assertion must name Steam's endpoint (`op_endpoint`), come back to
the exact `return_to` we sent, claim `https://steamcommunity.com/openid/id/<Steam64>` (17
digits) and carry a fresh `response_nonce`; the caller claims the nonce once (no replay).

The endpoint is a setting (`steam_openid_url`): tests and the local stack point it at a
stand-in on 127.0.0.1.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from urllib.parse import urlencode

from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.identity.port import NameServiceUnavailable

STEAM_OPENID_URL = "https://steamcommunity.com/openid/login"
OPENID_NS = "http://specs.openid.net/auth/2.0"
IDENTIFIER_SELECT = "http://specs.openid.net/auth/2.0/identifier_select"
STEAM64 = re.compile(r"^\d{17}$")
CLAIMED_ID = re.compile(r"^https://steamcommunity\.com/openid/id/(\d{17})$")
# The fields a positive assertion must sign (Steam signs these and more).
REQUIRED_SIGNED = ("op_endpoint", "claimed_id", "identity", "return_to", "response_nonce", "assoc_handle")
NONCE_MAX_AGE = timedelta(minutes=10)  # an assertion older than this is refused (and so never replayed)
MAX_FIELD = 2048
MAX_BODY_BYTES = 4096
# A store is a Steam store when its catalog's `platform_type_id` names a Steam game (or "steam").
STEAM_PLATFORMS = frozenset(
    {"steam", "rust", "gmod", "garrysmod", "ark", "unturned", "7daystodie", "hurtworld", "conanexiles"}
)


def is_steam_store(store: StoreProfile) -> bool:
    return store.platform_type_id.strip().lower() in STEAM_PLATFORMS


@dataclass(frozen=True)
class SteamAssertion:
    """A verified sign-in: the player's Steam64 id, and the nonce to claim once."""

    steam_id: str
    nonce: str


def _field(params: Mapping[str, str], name: str) -> str:
    value = params.get(f"openid.{name}") or ""
    if not value or len(value) > MAX_FIELD:
        raise Invalid(f"The Steam sign-in is missing openid.{name}; sign in again", field=f"openid.{name}")
    return value


def nonce_time(nonce: str) -> datetime:
    """The time a `response_nonce` starts with (`2026-11-27T04:30:00Z…`, OpenID 2.0 §10.1)."""
    try:
        return datetime.strptime(nonce[:20], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)
    except ValueError as error:
        raise Invalid(
            "openid.response_nonce is not a time-stamped nonce", field="openid.response_nonce"
        ) from error


class SteamOpenId:
    """The adapter: the redirect to Steam, and the check of what Steam sends back."""

    def __init__(self, login_url: str, timeout_seconds: float) -> None:
        self.login_url = login_url
        self.timeout_seconds = timeout_seconds

    def redirect_url(self, return_to: str, realm: str) -> str:
        query = {
            "openid.ns": OPENID_NS,
            "openid.mode": "checkid_setup",
            "openid.return_to": return_to,
            "openid.realm": realm,
            "openid.identity": IDENTIFIER_SELECT,
            "openid.claimed_id": IDENTIFIER_SELECT,
        }
        return f"{self.login_url}?{urlencode(query)}"

    def check(self, params: Mapping[str, str], return_to: str, now: datetime) -> SteamAssertion:
        """The assertion's own fields (no network): Invalid naming the first one that is wrong."""
        mode = params.get("openid.mode")
        if mode == "cancel":
            raise Invalid("The Steam sign-in was cancelled (openid.mode=cancel)", field="openid.mode")
        if mode != "id_res":
            raise Invalid("openid.mode must be id_res (a positive assertion)", field="openid.mode")
        if _field(params, "ns") != OPENID_NS:
            raise Invalid("openid.ns is not OpenID 2.0", field="openid.ns")
        if _field(params, "op_endpoint") != self.login_url:
            raise Invalid("openid.op_endpoint is not Steam's OpenID endpoint", field="openid.op_endpoint")
        if _field(params, "return_to") != return_to:
            raise Invalid("openid.return_to is not this basket's sign-in address", field="openid.return_to")
        claimed = CLAIMED_ID.match(_field(params, "claimed_id"))
        if claimed is None:
            raise Invalid("openid.claimed_id is not a Steam account", field="openid.claimed_id")
        if _field(params, "identity") != params["openid.claimed_id"]:
            raise Invalid("openid.identity differs from openid.claimed_id", field="openid.identity")
        signed = set(_field(params, "signed").split(","))
        missing = [name for name in REQUIRED_SIGNED if name not in signed]
        if missing:
            raise Invalid(f"openid.signed does not cover {missing[0]}", field="openid.signed")
        _field(params, "sig")
        nonce = _field(params, "response_nonce")
        issued = nonce_time(nonce)
        if not -timedelta(minutes=5) <= now - issued <= NONCE_MAX_AGE:
            raise Invalid("This Steam sign-in has expired; sign in again", field="openid.response_nonce")
        return SteamAssertion(steam_id=claimed.group(1), nonce=nonce)

    def verify(self, params: Mapping[str, str], return_to: str, now: datetime) -> SteamAssertion:
        """`check`, then Steam's own word (`check_authentication`): Invalid when Steam says the
        assertion is not valid; NameServiceUnavailable when Steam cannot be asked."""
        assertion = self.check(params, return_to, now)
        fields = {k: v for k, v in params.items() if k.startswith("openid.")}
        fields["openid.mode"] = "check_authentication"
        answer = self._post(urlencode(fields).encode())
        lines = dict(line.partition(":")[::2] for line in answer.splitlines() if ":" in line)
        if lines.get("is_valid", "").strip() != "true":
            raise Invalid(
                "Steam did not confirm this sign-in (openid.sig: is_valid:false)", field="openid.sig"
            )
        return assertion

    def _post(self, body: bytes) -> str:
        import http.client
        import urllib.error
        import urllib.request

        headers = {"Content-Type": "application/x-www-form-urlencoded", "User-Agent": "webstore"}
        request = urllib.request.Request(self.login_url, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:
                return bytes(response.read(MAX_BODY_BYTES)).decode("utf-8", "replace")
        except (OSError, ValueError, http.client.HTTPException) as error:  # HTTPError is an OSError
            raise NameServiceUnavailable(
                "Steam is not answering right now, so your sign-in cannot be checked. Nothing was "
                "changed: please try again in a minute.",
                field="openid.sig",
            ) from error


# Steam's own limit on a persona name; longer (or control characters) is not a name Steam gave.
PERSONA_MAX = 32
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
STEAM_API_KEY = re.compile(r"^[0-9A-Fa-f]{32}$")


def check_steam_api_key(key: str) -> str:
    """A Steam Web API key as Steam issues them (32 hexadecimal characters), else Invalid."""
    key = key.strip()
    if not STEAM_API_KEY.match(key):
        raise Invalid(
            "steam_api_key: a Steam Web API key is 32 hexadecimal characters "
            "(https://steamcommunity.com/dev/apikey)",
            field="steam_api_key",
        )
    return key.upper()


def persona_of(answer: object, steam_id: str) -> str | None:
    """The persona name of `steam_id` in a GetPlayerSummaries answer (`{"response": {"players":
    [{"steamid", "personaname", …}]}}`), or None when it has none usable."""
    response = answer.get("response") if isinstance(answer, dict) else None
    players = response.get("players") if isinstance(response, dict) else None
    for player in players if isinstance(players, list) else []:
        if isinstance(player, dict) and player.get("steamid") == steam_id:
            name = player.get("personaname")
            if isinstance(name, str):
                name = " ".join(CONTROL.sub("", name).split())
                if name and len(name) <= PERSONA_MAX:
                    return name
    return None


class SteamWebApi:
    """The profile adapter (port `SteamProfiles`): `ISteamUser/GetPlayerSummaries/v2` with the
    store's Web API key."""

    def __init__(self, base_url: str, api_key: str, timeout_seconds: float) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout_seconds = timeout_seconds

    def persona_name(self, steam_id: str) -> str | None:
        import http.client
        import json
        import urllib.request

        query = urlencode({"key": self.api_key, "steamids": steam_id})
        url = f"{self.base_url}/ISteamUser/GetPlayerSummaries/v2/?{query}"
        request = urllib.request.Request(
            url, headers={"Accept": "application/json", "User-Agent": "webstore"}
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout_seconds) as response:
                answer = json.loads(bytes(response.read(MAX_PROFILE_BYTES)))
        except (OSError, ValueError, http.client.HTTPException) as error:  # 403 (a bad key): HTTPError
            raise NameServiceUnavailable("Steam's Web API is not answering", field="steam_api_key") from error
        return persona_of(answer, steam_id)


MAX_PROFILE_BYTES = 64 * 1024
