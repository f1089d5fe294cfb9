"""Key formats: parseable public identifiers and the SK order the store reads depend on."""

from __future__ import annotations

import pytest

from webstore import keys
from webstore.errors import NotFound


def test_public_identifiers_carry_the_account() -> None:
    for account in (1, 35, 36, 2_147_483_647):
        assert keys.account_of(keys.new_public_token(account)) == account
        assert keys.account_of(keys.new_basket_ident(account)) == account


@pytest.mark.parametrize("value", ["", "1", "1-xyz", "0-" + "0" * 32, "zzzzzzz-" + "0" * 32, "1-" + "A" * 32])
def test_malformed_or_out_of_range_identifiers_are_not_found(value: str) -> None:
    with pytest.raises(NotFound):
        keys.account_of(value)


def test_transaction_ids_round_trip() -> None:
    txn = keys.new_transaction_id(42)
    assert txn.startswith("tbx-42-")
    assert keys.payment_id_of(txn) == 42
    with pytest.raises(NotFound):
        keys.payment_id_of("tbx-99999999999-00000000")


def test_package_idents() -> None:
    assert keys.package_ident(3, 20) == "pkg_3_20"
    assert keys.package_ident(4, 7, dynamic=True) == "dyn_4_7"
    assert keys.parse_package_ident("dyn_4_7") == ("dyn", 4, 7)
    assert keys.parse_package_ident("ext_1_x") is None


def test_store_partition_order_keeps_each_read_contiguous() -> None:
    page, goal, store = keys.page_sk(1), keys.goal_sk(1), keys.STORE_ITEM
    category, package = keys.category_sk(1), keys.package_sk(1)
    assert page < goal < keys.STATS_ITEM < store < category < package
    assert page >= keys.PAGES_FIRST and keys.page_sk(2_147_483_647) < keys.GOALS_FIRST <= goal
    assert keys.category_sk(2_147_483_647) < keys.CATEGORIES_LAST < package
    assert keys.package_sk(2_147_483_647) < keys.PACKAGES_LAST


def test_secrets_are_hashed_and_compared_in_constant_time() -> None:
    secret = keys.new_secret()
    digest = keys.hash_secret(secret)
    assert secret not in digest and len(digest) == 64
    assert keys.secret_matches(secret, digest)
    assert not keys.secret_matches(secret + "x", digest)


def test_player_uuid_is_the_offline_mode_uuid() -> None:
    # Minecraft's offline-mode UUID of "Notch".
    assert keys.player_uuid("Notch") == "b50ad385-829d-3141-a216-7e7d7539ba7f"
