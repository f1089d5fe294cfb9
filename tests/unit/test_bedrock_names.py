"""The platform's one username rule (webstore.repo.users.check_username; docs/decisions.md,
"Bedrock names"): Java Edition's everywhere, and, in a store that accepts Bedrock players
(`bedrock_prefix`), the Floodgate prefix then an Xbox gamertag."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from webstore import keys
from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.identity.offline import OfflineIdentities
from webstore.repo.users import check_username, is_bedrock_name

BEDROCK = StoreProfile(id=1, name="Demo", bedrock_prefix=".")
JAVA_ONLY = StoreProfile(id=1, name="Demo")


@pytest.mark.parametrize("name", [".Steve", ".Steve Jobs", ".Big_Tree 42", ".x", ".A234567890123456"])
def test_a_bedrock_store_takes_the_prefix_then_a_gamertag(name: str) -> None:
    assert check_username(name, store=BEDROCK) == name
    assert is_bedrock_name(name, ".")


@pytest.mark.parametrize(
    "name",
    [
        ".",
        ". Steve",
        ".Steve  Jobs",
        ".A2345678901234567",
        ".Stève",
        "*Steve",
        ".Ste<ve",
        "Steve Jobs",
    ],
)
def test_what_is_not_a_gamertag_under_the_prefix_is_refused_naming_the_prefix(name: str) -> None:
    with pytest.raises(Invalid, match=r"a Bedrock player's is '\.' then their gamertag") as refused:
        check_username(name, "target_username_id", store=BEDROCK)
    assert refused.value.field == "target_username_id"


@pytest.mark.parametrize("name", ["Notch", "jeb_", "abc", "A234567890123456"])
def test_java_names_pass_in_every_store(name: str) -> None:
    for store in (BEDROCK, JAVA_ONLY, None):
        assert check_username(name, store=store) == name


def test_a_java_only_store_refuses_bedrock_names_with_the_java_rule() -> None:
    with pytest.raises(Invalid, match=r"^A username is 3 to 16 letters, digits or underscores$"):
        check_username(".Steve Jobs", store=JAVA_ONLY)
    assert not is_bedrock_name(".Steve", "")


def test_before_the_store_is_read_a_bedrock_name_under_any_prefix_passes() -> None:
    """The early check (before the read) lets a Bedrock shape through; the use case checks again."""
    for name in (".Steve Jobs", "*Steve", "!#Steve"):
        assert check_username(name) == name
    for name in ("Steve Jobs", "aa", ". x", "abcde.Steve", ".....Steve"):
        with pytest.raises(Invalid):
            check_username(name)


def test_a_bedrock_players_uuid_is_the_offline_uuid_of_the_whole_name() -> None:
    account = OfflineIdentities().resolve(".Steve Jobs")
    assert account.dashed_uuid == keys.player_uuid(".Steve Jobs")
    assert account.dashed_uuid[14] == "3"  # version 3, as Java's OfflinePlayer:<name>


@pytest.mark.parametrize("prefix", ["a", "_", " ", ".....", "é"])
def test_a_prefix_is_one_to_four_symbols(prefix: str) -> None:
    with pytest.raises(ValidationError):
        StoreProfile(id=1, name="Demo", bedrock_prefix=prefix)
    for good in (".", "*", "#!", ""):
        assert StoreProfile(id=1, name="Demo", bedrock_prefix=good).bedrock_prefix == good
