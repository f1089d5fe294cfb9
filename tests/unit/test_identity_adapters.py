"""The player-identity adapters: Mojang's profile lookup against a stand-in server on
127.0.0.1 (every answer the real one gives, and the ways it fails), and offline mode."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from tests.support.local_stack import free_port
from tests.support.name_service import JEB, NOTCH, StandInNameService, running_name_service
from webstore import keys
from webstore.identity.mojang import MojangProfiles
from webstore.identity.offline import OfflineIdentities
from webstore.identity.port import Account, NameServiceUnavailable
from webstore.settings import Settings


@pytest.fixture
def stand_in() -> Iterator[StandInNameService]:
    with running_name_service(NOTCH, JEB) as service:
        service.hang_seconds = 1.5
        yield service


def lookup(service: StandInNameService) -> MojangProfiles:
    return MojangProfiles(service.base_url + "/", timeout_seconds=0.5)


def test_a_known_name_resolves_to_the_account_with_its_real_casing(stand_in: StandInNameService) -> None:
    account = lookup(stand_in).resolve("NOTCH")
    assert account == Account(uuid=NOTCH[0], username="Notch")
    assert account.dashed_uuid == "069a79f4-44e9-4726-a5be-fca90e38aaf5"
    assert stand_in.requests == ["NOTCH"]


@pytest.mark.parametrize("status", [204, 400, 404])
def test_no_account_of_that_name_is_none(stand_in: StandInNameService, status: int) -> None:
    if status != 404:
        stand_in.down = status  # the answers the real service gave (204) or gives (400, 404)
    assert lookup(stand_in).resolve("nobody_here") is None


@pytest.mark.parametrize("trouble", [429, 500, 502, 503, 301, "garbage"])
def test_a_service_in_trouble_is_unavailable_not_unknown(
    stand_in: StandInNameService, trouble: int | str
) -> None:
    stand_in.down = trouble
    with pytest.raises(NameServiceUnavailable) as raised:
        lookup(stand_in).resolve("Notch")
    assert raised.value.status == 503 and raised.value.field == "username"


def test_a_lookup_that_takes_too_long_gives_up_after_the_timeout(stand_in: StandInNameService) -> None:
    stand_in.down = "timeout"
    started = time.monotonic()
    with pytest.raises(NameServiceUnavailable):
        lookup(stand_in).resolve("Notch")
    assert time.monotonic() - started < 1.4


def test_nothing_listening_is_unavailable() -> None:
    with pytest.raises(NameServiceUnavailable):
        MojangProfiles(f"http://127.0.0.1:{free_port()}", 0.5).resolve("Notch")


def test_a_profile_of_another_name_is_not_an_answer(stand_in: StandInNameService) -> None:
    stand_in.accounts["notch"] = (NOTCH[0], "Dinnerbone")
    with pytest.raises(NameServiceUnavailable):
        lookup(stand_in).resolve("Notch")


def test_offline_mode_is_the_offline_uuid_of_the_name_as_typed() -> None:
    account = OfflineIdentities().resolve("Notch")
    assert account.username == "Notch"
    assert account.dashed_uuid == keys.player_uuid("Notch") == "b50ad385-829d-3141-a216-7e7d7539ba7f"


def test_the_lookup_base_url_is_a_checked_setting(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().identity_base_url == "https://api.mojang.com"
    assert Settings(identity_base_url="http://127.0.0.1:9999/").identity_base_url == "http://127.0.0.1:9999"
    monkeypatch.setenv("WEBSTORE_IDENTITY_BASE_URL", "api.mojang.com")
    with pytest.raises(ValidationError, match="identity_base_url"):
        Settings()
