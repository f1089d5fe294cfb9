"""The user registry's conditions (moto): one id per offline name and per Minecraft account,
and a name's cached resolution never replaced by an older one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from tests.support.demo import DemoStore
from webstore.catalog import StoreProfile
from webstore.identity.identify import identify, identify_now
from webstore.repo import Transaction
from webstore.repo.users import AlreadyRegistered, User, UserRepository
from webstore.services import get_services

T0 = datetime(2026, 3, 1, tzinfo=UTC)
ACCOUNT = User(77, "Notch", "069a79f4-44e9-4726-a5be-fca90e38aaf5")
OFFLINE_STORE = StoreProfile(id=1, name="Offline")


def test_an_offline_name_is_bound_once_and_a_racing_registration_reads_the_winner(demo: DemoStore) -> None:
    services = get_services()
    first = identify(services, OFFLINE_STORE, "Racer")
    second = identify(services, OFFLINE_STORE, "racer")  # both read "absent" before either wrote
    assert first.new_offline and second.new_offline and first.user.id != second.user.id
    tx = Transaction(demo.table)
    first.add_writes(tx)
    tx.commit()
    tx = Transaction(demo.table)
    second.add_writes(tx)
    with pytest.raises(AlreadyRegistered):
        tx.commit()
    assert identify_now(services, OFFLINE_STORE, "RACER") == first.user  # theirs stands


def test_a_minecraft_account_is_bound_to_one_id(demo: DemoStore) -> None:
    users = UserRepository(demo.table)
    tx = Transaction(demo.table)
    users.add_online_account(tx, ACCOUNT)
    tx.commit()
    assert users.online_account_id(ACCOUNT.uuid.replace("-", "")) == 77
    tx = Transaction(demo.table)
    users.add_online_account(tx, User(78, "Notch", ACCOUNT.uuid))
    with pytest.raises(AlreadyRegistered):
        tx.commit()
    assert users.online_account_id(ACCOUNT.uuid) == 77


def test_an_older_resolution_never_replaces_a_newer_one(demo: DemoStore) -> None:
    users = UserRepository(demo.table)
    users.save_online_resolution(ACCOUNT, T0)
    with pytest.raises(AlreadyRegistered):
        users.save_online_resolution(User(77, "NOTCH", ACCOUNT.uuid), T0 - timedelta(days=1))
    users.save_online_resolution(User(77, "NOTCH", ACCOUNT.uuid), T0 + timedelta(days=31))
    cached = users.find_online("notch")
    assert cached is not None and cached.user.username == "NOTCH"
    assert cached.resolved_at == T0 + timedelta(days=31)
    assert users.find("notch") is None  # the offline namespace is another one
