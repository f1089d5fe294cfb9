"""The Steam OpenID assertion's own rules (no network): `SteamOpenId.check`."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.identity.steam import IDENTIFIER_SELECT, SteamOpenId, is_steam_store, nonce_time

ENDPOINT = "http://127.0.0.1:9/openid/login"
RETURN_TO = "https://shop.test/auth/b/steam?returnUrl=x"
NOW = datetime(2026, 3, 15, 12, 0, tzinfo=UTC)
CLAIMED = "https://steamcommunity.com/openid/id/76561197960287930"


def assertion(**change: str) -> dict[str, str]:
    params = {
        "openid.ns": "http://specs.openid.net/auth/2.0",
        "openid.mode": "id_res",
        "openid.op_endpoint": ENDPOINT,
        "openid.claimed_id": CLAIMED,
        "openid.identity": CLAIMED,
        "openid.return_to": RETURN_TO,
        "openid.response_nonce": "2026-03-15T11:59:00Zxyz",
        "openid.assoc_handle": "1",
        "openid.signed": "signed,op_endpoint,claimed_id,identity,return_to,response_nonce,assoc_handle",
        "openid.sig": "s",
    }
    return {**params, **change}


def test_a_well_formed_assertion_names_the_steam64_id_and_its_nonce() -> None:
    checked = SteamOpenId(ENDPOINT, 1).check(assertion(), RETURN_TO, NOW)
    assert (checked.steam_id, checked.nonce) == ("76561197960287930", "2026-03-15T11:59:00Zxyz")


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"openid.identity": "https://steamcommunity.com/openid/id/76561197960287931"}, "openid.identity"),
        ({"openid.claimed_id": "https://steamcommunity.com/openid/id/123"}, "openid.claimed_id"),
        ({"openid.signed": "signed,op_endpoint,claimed_id,identity,return_to"}, "openid.signed"),
        ({"openid.response_nonce": "not-a-time"}, "openid.response_nonce"),
        ({"openid.response_nonce": "2026-03-15T11:40:00Zold"}, "openid.response_nonce"),
        ({"openid.ns": "http://openid.net/signon/1.1"}, "openid.ns"),
        ({"openid.mode": "checkid_setup"}, "openid.mode"),
        ({"openid.sig": ""}, "openid.sig"),
    ],
)
def test_a_wrong_field_is_named(change: dict[str, str], field: str) -> None:
    with pytest.raises(Invalid) as refused:
        SteamOpenId(ENDPOINT, 1).check(assertion(**change), RETURN_TO, NOW)
    assert refused.value.field == field


def test_the_redirect_asks_steam_to_select_the_identity() -> None:
    url = SteamOpenId(ENDPOINT, 1).redirect_url(RETURN_TO, "https://shop.test/")
    assert url.startswith(ENDPOINT + "?openid.ns=")
    assert "openid.mode=checkid_setup" in url
    assert IDENTIFIER_SELECT.replace(":", "%3A").replace("/", "%2F") in url


def test_steam_stores_by_platform() -> None:
    assert is_steam_store(StoreProfile(id=1, name="R", platform_type_id="rust"))
    assert not is_steam_store(StoreProfile(id=1, name="M"))
    assert nonce_time("2026-03-15T11:59:00Zabc") == NOW - timedelta(minutes=1)
