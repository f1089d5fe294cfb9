"""Sealing webhook signing secrets: what is stored reveals nothing and opens only with the key."""

from __future__ import annotations

import pytest
from pydantic import SecretStr

from webstore.sealing import open_sealed, seal
from webstore.secret_box import NoKeyConfigured, SealBroken, SecretBox, secret_box
from webstore.settings import Settings

SECRET = "whsec-0123456789abcdef"


def box(key: str = "stage-key") -> SecretBox:
    return SecretBox(lambda: key)


def test_a_sealed_secret_opens_to_itself_and_does_not_contain_it() -> None:
    sealed = seal(box(), SECRET)
    assert SECRET not in sealed
    assert open_sealed(box(), sealed) == SECRET


def test_sealing_twice_gives_different_seals() -> None:
    assert seal(box(), SECRET) != seal(box(), SECRET)


def test_another_key_cannot_open_it() -> None:
    with pytest.raises(SealBroken):
        open_sealed(box("other-key"), seal(box(), SECRET))


def test_a_tampered_seal_does_not_open() -> None:
    sealed = seal(box(), SECRET)
    tampered = sealed[:-6] + ("A" if sealed[-6] != "A" else "B") + sealed[-5:]
    with pytest.raises(SealBroken):
        open_sealed(box(), tampered)


def test_the_key_comes_from_settings_locally() -> None:
    settings = Settings(webhook_key=SecretStr("stage-key"))
    assert open_sealed(box(), seal(secret_box(settings), SECRET)) == SECRET


def test_without_a_key_sealing_says_what_to_configure() -> None:
    unconfigured = secret_box(Settings(webhook_key=None, webhook_key_secret=None))
    with pytest.raises(NoKeyConfigured, match="WEBSTORE_WEBHOOK_KEY_SECRET"):
        seal(unconfigured, SECRET)


def test_the_key_never_shows_in_the_settings_repr() -> None:
    assert "stage-key" not in repr(Settings(webhook_key=SecretStr("stage-key")))
