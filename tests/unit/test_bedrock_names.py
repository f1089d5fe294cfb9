"""The platform's one username rule (webstore.usernames.check_username; docs/decisions.md,
"Bedrock names"): Java Edition's everywhere, and, in a store that accepts Bedrock players,
the Floodgate prefix then an Xbox gamertag (`bedrock_prefix`) or the bare gamertag
(`bedrock_unprefixed`)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from pydantic import ValidationError

from webstore import keys
from webstore.catalog import StoreProfile
from webstore.errors import Invalid
from webstore.identity.offline import OfflineIdentities
from webstore.repo.users import CachedResolution, RegistryRead, User
from webstore.usernames import Bedrock, bedrock_kind, check_username, is_bedrock_name

BEDROCK = StoreProfile(id=1, name="Demo", bedrock_prefix=".")
JAVA_ONLY = StoreProfile(id=1, name="Demo")
UNPREFIXED = StoreProfile(id=1, name="Demo", bedrock_unprefixed=True)


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


def test_before_the_store_is_read_a_bedrock_name_under_any_prefix_or_none_passes() -> None:
    """The early check (before the read) lets a Bedrock shape through; the use case checks again."""
    for name in (".Steve Jobs", "*Steve", "!#Steve"):
        assert check_username(name) == name
    for name in ("Steve Jobs", "aa", "x"):  # a store without a prefix may take a bare gamertag
        assert check_username(name) == name
    for name in ("BE_Steve Jobs", "be_Al", "abcde.Steve"):  # under a prefix with letters
        assert check_username(name) == name
    too_long = "A2345678901234567890123456"  # longer than any prefix and a gamertag
    for name in (". x", "abcdefghi.Steve", ".........Steve", "Steve  Jobs", " ", too_long, "Stève"):
        with pytest.raises(Invalid):
            check_username(name)


def test_a_bedrock_players_uuid_is_the_offline_uuid_of_the_whole_name() -> None:
    account = OfflineIdentities().resolve(".Steve Jobs")
    assert account.dashed_uuid == keys.player_uuid(".Steve Jobs")
    assert account.dashed_uuid[14] == "3"  # version 3, as Java's OfflinePlayer:<name>


@pytest.mark.parametrize("prefix", [" ", "BE ", "123456789", "é", "BE\t"])
def test_a_prefix_is_one_to_eight_printable_characters_without_a_space(prefix: str) -> None:
    with pytest.raises(ValidationError) as refused:
        StoreProfile(id=1, name="Demo", bedrock_prefix=prefix)
    assert [e["loc"] for e in refused.value.errors()] == [("bedrock_prefix",)]
    for good in (".", "*", "#!", "", "a", "_", "BE_", "bedrock.", "12345678"):
        assert StoreProfile(id=1, name="Demo", bedrock_prefix=good).bedrock_prefix == good


# --- A prefix with letters (`BE_`) ---------------------------------------------------------------

LETTERS = StoreProfile(id=1, name="Demo", bedrock_prefix="BE_")


@pytest.mark.parametrize("name", ["BE_Steve Jobs", "BE_A B", "be_Steve Jobs", "BE_A234567890123456"])
def test_under_a_prefix_with_letters_a_name_no_java_name_can_be_is_a_bedrock_players(name: str) -> None:
    assert check_username(name, store=LETTERS) == name
    assert bedrock_kind(name, LETTERS) is Bedrock.YES


@pytest.mark.parametrize("name", ["BE_Steve", "BE_x", "BE_Steve_Jobs", "be_steve", "BE_1234567890123"])
def test_under_a_prefix_with_letters_a_prefixed_java_name_is_either(name: str) -> None:
    """The same rule as a store without a prefix: Java first in an online-mode store."""
    assert check_username(name, store=LETTERS) == name
    assert bedrock_kind(name, LETTERS) is Bedrock.MAYBE


@pytest.mark.parametrize("name", ["Notch", "BEAST", "BE_"])
def test_under_a_prefix_with_letters_other_java_names_are_java_ones(name: str) -> None:
    assert bedrock_kind(check_username(name, store=LETTERS), LETTERS) is Bedrock.NOT


@pytest.mark.parametrize("name", ["Steve Jobs", ".Steve", "BE_Steve  Jobs", "BE_Stève", "BE_ Steve"])
def test_under_a_prefix_with_letters_other_names_are_refused_naming_the_prefix(name: str) -> None:
    with pytest.raises(Invalid, match=r"a Bedrock player's is 'BE_' then their gamertag") as refused:
        check_username(name, "ign", store=LETTERS)
    assert refused.value.field == "ign"


def test_a_prefixed_name_valid_under_both_rules_reads_as_in_an_unprefixed_store() -> None:
    online = LETTERS.model_copy(update={"online_mode": True})
    java = User(1, "BE_Steve", "069a79f4-44e9-4726-a5be-fca90e38aaf5")
    bedrock = User(2, "BE_Steve", keys.player_uuid("BE_Steve"))
    resolved = CachedResolution(java, datetime(2026, 1, 1, tzinfo=UTC))
    assert RegistryRead(offline=bedrock, online=resolved).user_for(online, "BE_Steve") == java
    assert RegistryRead(offline=bedrock).user_for(online, "BE_Steve") is None
    assert RegistryRead(offline=bedrock).user_for(LETTERS, "BE_Steve") == bedrock
    spaced = User(3, "BE_Steve Jobs", keys.player_uuid("BE_Steve Jobs"))
    assert RegistryRead(offline=spaced).user_for(online, "BE_Steve Jobs") == spaced


# --- Floodgate without a prefix (`bedrock_unprefixed`) ------------------------------------------


@pytest.mark.parametrize("name", ["Steve Jobs", "Big Tree 42", "x", "ab", "A B", "a_b c"])
def test_an_unprefixed_store_takes_a_gamertag_no_java_name_can_be_as_a_bedrock_players(name: str) -> None:
    assert check_username(name, store=UNPREFIXED) == name
    assert bedrock_kind(name, UNPREFIXED) is Bedrock.YES


@pytest.mark.parametrize("name", ["Notch", "Steve_Jobs", "abc", "A234567890123456"])
def test_in_an_unprefixed_store_a_name_valid_under_both_rules_is_either(name: str) -> None:
    assert check_username(name, store=UNPREFIXED) == name
    assert bedrock_kind(name, UNPREFIXED) is Bedrock.MAYBE


@pytest.mark.parametrize("name", [".Steve", "Steve  Jobs", "A2345678901234567", "Stève", "a-b", "Ste ve!"])
def test_an_unprefixed_store_refuses_what_is_neither_naming_both_rules(name: str) -> None:
    with pytest.raises(Invalid, match=r"a Bedrock player's is their gamertag \(up to 16") as refused:
        check_username(name, "target_username_id", store=UNPREFIXED)
    assert refused.value.field == "target_username_id"


def test_surrounding_spaces_are_trimmed_as_from_any_name() -> None:
    assert check_username(" Steve Jobs ", store=UNPREFIXED) == "Steve Jobs"


def test_the_other_stores_say_which_names_are_bedrock_ones() -> None:
    assert bedrock_kind("Notch", BEDROCK) is Bedrock.NOT
    assert bedrock_kind(".Steve Jobs", BEDROCK) is Bedrock.YES
    assert bedrock_kind("Notch", JAVA_ONLY) is Bedrock.NOT
    assert bedrock_kind("Steve", JAVA_ONLY) is Bedrock.NOT
    with pytest.raises(Invalid, match=r"^A username is 3 to 16 letters, digits or underscores$"):
        check_username("Steve Jobs", store=JAVA_ONLY)


def test_a_prefix_and_no_prefix_cannot_both_be_set() -> None:
    with pytest.raises(ValidationError, match="Floodgate has one username-prefix") as refused:
        StoreProfile(id=1, name="Demo", bedrock_prefix=".", bedrock_unprefixed=True)
    assert [e["loc"] for e in refused.value.errors()] == [("bedrock_unprefixed",)]
    assert StoreProfile(id=1, name="Demo", bedrock_prefix="", bedrock_unprefixed=True).bedrock_unprefixed


def test_what_a_basket_read_finds_for_an_ambiguous_name_in_an_online_store() -> None:
    """A name either player may have is the Java account it resolved to; without a resolution
    it is unknown to the read (identify asks the name service); a gamertag with a space is the
    Bedrock player's offline identity."""
    online = UNPREFIXED.model_copy(update={"online_mode": True})
    java = User(1, "Notch", "069a79f4-44e9-4726-a5be-fca90e38aaf5")
    bedrock = User(2, "Notch", keys.player_uuid("Notch"))
    resolved = CachedResolution(java, datetime(2026, 1, 1, tzinfo=UTC))
    assert RegistryRead(offline=bedrock, online=resolved).user_for(online, "Notch") == java
    assert RegistryRead(offline=bedrock).user_for(online, "Notch") is None
    assert RegistryRead(offline=bedrock).user_for(UNPREFIXED, "Notch") == bedrock
    spaced = User(3, "Steve Jobs", keys.player_uuid("Steve Jobs"))
    assert RegistryRead(offline=spaced).user_for(online, "Steve Jobs") == spaced


def test_a_basket_read_knows_no_player_by_a_name_the_store_does_not_take() -> None:
    """The registry is the platform's: another store's Bedrock player is no player of a store
    whose rule refuses the name (identify then refuses it with the store's rule)."""
    spaced = User(3, "Steve Jobs", keys.player_uuid("Steve Jobs"))
    assert RegistryRead(offline=spaced).user_for(JAVA_ONLY, "Steve Jobs") is None
    assert RegistryRead(offline=spaced).user_for(BEDROCK, "Steve Jobs") is None
    assert RegistryRead(offline=spaced).user_for(UNPREFIXED, "Steve Jobs") == spaced
