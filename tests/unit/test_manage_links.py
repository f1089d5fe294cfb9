"""Signed manage links and form tokens (webstore.subscriptions.manage_links): pure, no table."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from webstore.errors import Forbidden, NotFound
from webstore.secret_box import SecretBox
from webstore.subscriptions.manage_links import check_form_token, form_token, manage_token, open_token

BOX = SecretBox(lambda: "stage-key")
NOW = datetime(2026, 6, 16, 12, tzinfo=UTC)


def test_a_token_opens_to_its_account_and_reference() -> None:
    token = manage_token(BOX, 36, "tbx-12-0a0b0c0d")
    assert token.startswith("10.tbx-12-0a0b0c0d.")
    assert open_token(BOX, token) == (36, "tbx-12-0a0b0c0d")


@pytest.mark.parametrize(
    "change",
    [
        lambda t: t.replace("tbx-12-", "tbx-13-"),  # another subscription
        lambda t: "11" + t[2:],  # another store
        lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"),  # a guessed MAC
        lambda t: t.rsplit(".", 1)[0],  # no MAC
        lambda t: "",
        lambda t: "Notch",
    ],
)
def test_anything_but_the_issued_token_is_not_found(change) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound):
        open_token(BOX, change(manage_token(BOX, 36, "tbx-12-0a0b0c0d")))


def test_another_stage_key_opens_nothing() -> None:
    with pytest.raises(NotFound):
        open_token(SecretBox(lambda: "other-stage"), manage_token(BOX, 36, "tbx-12-0a0b0c0d"))


def test_the_link_key_is_not_the_form_key() -> None:
    token = manage_token(BOX, 1, "tbx-1-0a0b0c0d")
    mac = token.rsplit(".", 1)[1]
    with pytest.raises(Forbidden):
        check_form_token(BOX, 1, "tbx-1-0a0b0c0d", "cancel", f"{int(NOW.timestamp())}.{mac}", NOW)


def test_form_tokens_are_for_one_action_and_one_hour() -> None:
    token = form_token(BOX, 1, "tbx-1-0a0b0c0d", "cancel", NOW)
    check_form_token(BOX, 1, "tbx-1-0a0b0c0d", "cancel", token, NOW + timedelta(minutes=59))
    for action, at in (
        ("undo", NOW),
        ("cancel", NOW + timedelta(hours=1, seconds=1)),
        ("cancel", NOW - timedelta(minutes=5)),
    ):
        with pytest.raises(Forbidden):
            check_form_token(BOX, 1, "tbx-1-0a0b0c0d", action, token, at)
    with pytest.raises(Forbidden):
        check_form_token(BOX, 2, "tbx-1-0a0b0c0d", "cancel", token, NOW)
