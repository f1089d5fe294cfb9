"""One test per repository method and condition the operator interface, its guard, the queue's
delete side, the webhook records and the catalog import use (moto)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from functools import partial

import pytest

from tests.support.demo import DemoStore
from webstore import keys
from webstore.catalog import Coupon, WebhookEndpoint
from webstore.db import Table
from webstore.errors import Conflict, NotFound
from webstore.operator.auth import GUARD_SCOPE
from webstore.repo.account import AccountRepository
from webstore.repo.bans import Ban, BanRepository
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.players import PlayerRepository
from webstore.repo.queue import CommandPointer, QueuedCommand, QueueRepository
from webstore.repo.sequences import SequenceRepository
from webstore.repo.store import StoreRepository
from webstore.repo.throttle import ThrottleRepository
from webstore.repo.users import User
from webstore.repo.webhooks import ClaimState, DeliveryAttempt, Failure, WebhookRepository
from webstore.sealing import seal
from webstore.secret_box import SecretBox
from webstore.servers import Server
from webstore.services import get_services

A = 1  # the demo store's account
NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def coupon(coupon_id: int, code: str) -> Coupon:
    return Coupon.model_validate(
        {
            "id": coupon_id,
            "code": code,
            "effective": {"type": "cart"},
            "discount": {"type": "percentage", "percentage": 10, "value": 0},
            "created_at": NOW,
        }
    )


# --- bans ----------------------------------------------------------------------------------------


def test_bans_are_listed_newest_first_and_ids_are_unique(table: Table) -> None:
    bans = BanRepository(table)
    for ban_id in (1, 2, 3):
        tx = get_services().transaction()
        bans.add(tx, A, Ban(id=ban_id, time=NOW, ign=f"player{ban_id}", uuid=None))
        tx.commit()
    assert [b.id for b in bans.latest(A, 2)] == [3, 2]
    assert bans.latest(A, 5)[0] == Ban(id=3, time=NOW, ign="player3")
    tx = get_services().transaction()
    bans.add(tx, A, Ban(id=2, time=NOW))
    with pytest.raises(Conflict, match="Ban 2 already exists"):
        tx.commit()


# --- the guard ---------------------------------------------------------------------------------


def test_the_guard_reads_a_secret_and_the_callers_mark_together(demo: DemoStore) -> None:
    guard = ThrottleRepository(demo.table, GUARD_SCOPE)
    owner, mark = guard.secret_and_mark(keys.hash_secret(demo.server_secret), "198.51.100.1")
    assert owner is not None and (owner.account_id, owner.server_id) == (A, 1) and mark is None
    guard.record_failure("198.51.100.1", now=1_000, window=60)
    owner, mark = guard.secret_and_mark(keys.hash_secret("wrong"), "198.51.100.1")
    assert owner is None and mark is not None and (mark.failures, mark.expires_at) == (1, 1_060)


def test_failures_count_within_a_window_and_a_lapsed_window_starts_over(table: Table) -> None:
    guard = ThrottleRepository(table, GUARD_SCOPE)
    assert (guard.record_failure("c", 1_000, 60).failures, guard.record_failure("c", 1_030, 60).failures) == (
        1,
        2,
    )
    assert guard.record_failure("c", 1_059, 60).expires_at == 1_060
    restarted = guard.record_failure("c", 1_061, 60)  # the window's condition fails: a new one
    assert (restarted.failures, restarted.expires_at) == (1, 1_121)
    item = table.get(keys.throttle_key("secret", "c"))
    assert item is not None and item["entity"] == "throttle"


# --- coupons and servers -------------------------------------------------------------------------


def test_a_coupon_code_is_unique_and_the_count_follows_creates_and_deletes(demo: DemoStore) -> None:
    accounts = AccountRepository(demo.table)
    before = accounts.coupon_count(A)
    fresh = accounts.create_coupon(A, lambda coupon_id: coupon(coupon_id, "FRESH"))
    assert accounts.coupon_count(A) == before + 1
    assert accounts.coupon_by_code(A, "fresh").id == fresh.id and accounts.coupon(A, fresh.id).code == "FRESH"
    with pytest.raises(Conflict, match="code 'FRESH' already exists") as taken:
        accounts.create_coupon(A, lambda coupon_id: coupon(coupon_id, "FRESH"))
    assert taken.value.field == "code"
    # the refused create spent no id
    assert accounts.create_coupon(A, lambda coupon_id: coupon(coupon_id, "NEXT")).id == fresh.id + 1
    accounts.delete_coupon(A, fresh)
    assert accounts.coupon_count(A) == before + 1
    with pytest.raises(NotFound):
        accounts.coupon_by_code(A, "FRESH")
    with pytest.raises(NotFound, match="Coupon not found"):
        accounts.delete_coupon(A, fresh)
    assert accounts.coupon_count(A) == before + 1  # nothing written by the refused delete


def test_a_coupon_id_already_taken_by_an_item_is_refused(table: Table) -> None:
    """An imported coupon the sequence was not raised past: the id's condition refuses."""
    by_id, by_code = AccountRepository(table).coupon_items(A, coupon(1, "IMPORTED"))
    DefinitionRepository(table).overwrite([by_id, by_code])
    with pytest.raises(Conflict, match="Coupon 1 already exists"):
        AccountRepository(table).create_coupon(A, lambda coupon_id: coupon(coupon_id, "OTHER"))
    assert SequenceRepository(table).read(A).last("coupon") == 0  # the id was not spent


def test_coupon_pages_by_cursor_and_by_skipping(table: Table) -> None:
    accounts = AccountRepository(table)
    for _ in range(1, 8):
        accounts.create_coupon(A, lambda coupon_id: coupon(coupon_id, f"C{coupon_id}"))
    first = accounts.coupon_page(A, 3)
    assert [c.id for c in first.coupons] == [1, 2, 3] and first.more_after and first.total == 7
    after = accounts.coupon_page(A, 3, after=6)
    assert [c.id for c in after.coupons] == [7] and not after.more_after
    before = accounts.coupon_page(A, 3, before=5)
    assert [c.id for c in before.coupons] == [2, 3, 4] and before.more_after
    assert accounts.coupon_page(A, 3, before=1).coupons == []
    assert [c.id for c in accounts.coupon_page(A, 3, skip=3).coupons] == [4, 5, 6]
    assert accounts.coupon_page(A, 3, skip=9).coupons == []  # past the end
    assert accounts.coupon_page(A, 3, after=keys.INT32_MAX).coupons == []


def test_recounting_coupons_sets_the_counter_from_the_items(table: Table) -> None:
    accounts = AccountRepository(table)
    for coupon_id in (1, 2):
        by_id, by_code = accounts.coupon_items(A, coupon(coupon_id, f"C{coupon_id}"))
        DefinitionRepository(table).overwrite([by_id, by_code])
    assert accounts.coupon_count(A) == 0
    assert accounts.recount_coupons(A) == 2 and accounts.coupon_count(A) == 2


def test_saving_a_server_replaces_its_secret_pointer(table: Table) -> None:
    accounts = AccountRepository(table)
    accounts.save_server(A, Server(id=4, name="Hub", secret_hash="old"), None)
    accounts.save_server(A, Server(id=4, name="Hub", secret_hash="new"), "old")
    assert table.get(keys.secret_key("old")) is None
    assert table.get(keys.secret_key("new")) == {
        **keys.secret_key("new"),
        "entity": "secret",
        "account_id": A,
        "server_id": 4,
    }
    assert accounts.servers(A)[4].secret_hash == "new"


# --- store: operator views ----------------------------------------------------------------------


def test_store_and_server_in_one_read(demo: DemoStore) -> None:
    stores = StoreRepository(demo.table)
    store, server = stores.store_and_server(A, 1)
    assert store is not None and store.id == A and server is not None and server.id == 1
    assert stores.store_and_server(A, 99)[1] is None
    assert stores.store_and_server(77, 1) == (None, None)


def test_catalog_with_servers_goals_and_one_goal(demo: DemoStore) -> None:
    stores = StoreRepository(demo.table)
    view, servers = stores.catalog_with_servers(A)
    assert view.packages and set(servers) == {1, 2}
    assert [g.id for g in stores.goals(A, 10)] == [1] and stores.goal(A, 1).id == 1
    with pytest.raises(NotFound, match="Community goal not found"):
        stores.goal(A, 2)


# --- players -----------------------------------------------------------------------------------


def test_players_by_name_and_uuid_with_their_counters(table: Table) -> None:
    user = User(id=12, username="Steve", uuid="8667ba71-b85a-4004-af54-457a9734eed7")
    tx = get_services().transaction()
    PlayerRepository.add_player(
        tx, A, user, email="s@example.com", now=NOW, counters={"bans": 1, "total_EUR": 5}
    )
    tx.commit()
    players = PlayerRepository(table)
    assert players.id_by_name(A, "steve") == 12 and players.id_by_uuid(A, user.uuid) == 12
    assert players.id_by_name(A, "alex") is None and players.id_by_uuid(A, "0" * 32) is None
    player = players.get(A, 12)
    assert player is not None and (player.username, player.email, player.bans) == (
        "Steve",
        "s@example.com",
        1,
    )
    assert player.totals == {"EUR": 5}
    found, payments = players.with_payments(A, 12, 10)
    assert found == player and payments == []
    assert players.get(A, 13) is None and players.with_payments(A, 13, 10) == (None, [])


# --- the queue's delete side --------------------------------------------------------------------


def queued(command_id: int, *, online: bool) -> QueuedCommand:
    return QueuedCommand(
        id=command_id,
        server_id=1,
        command=f"say {command_id}",
        require_online=online,
        username_id=5,
        username="Steve",
        created_at=NOW,
    )


def enqueue(commands: list[QueuedCommand]) -> None:
    """Queue commands as fulfilment does."""
    tx = get_services().transaction()
    QueueRepository.add_enqueue(tx, A, commands)
    tx.commit()


def test_pointers_and_deleting_what_they_name(table: Table) -> None:
    queue = QueueRepository(table)
    enqueue([queued(1, online=False), queued(2, online=True)])
    pointers = queue.pointers(A, 1, [1, 2, 3])
    assert sorted(pointers, key=lambda p: p.command_id) == [
        CommandPointer(1, keys.offline_command_sk(1), keys.QUEUE_STATE),
        CommandPointer(2, keys.online_command_sk(5, 2), keys.due_sk(5)),
    ]
    state, _ = queue.state_and_server(A, 1)
    assert state.offline_pending == 1
    assert queue.due_players(A, 1, None, 10)[0].pending == 1
    assert queue.delete_found(A, 1, pointers)
    assert queue.pointers(A, 1, [1, 2]) == []
    assert queue.state_and_server(A, 1)[0].offline_pending == 0
    assert queue.due_players(A, 1, None, 10)[0].pending == 0
    # Deleting again (another request took them first): the pointer's condition fails.
    assert not queue.delete_found(A, 1, pointers)
    assert queue.state_and_server(A, 1)[0].offline_pending == 0  # not counted twice


def test_an_idle_due_entry_is_dropped_but_a_busy_one_stays(table: Table) -> None:
    queue = QueueRepository(table)
    enqueue([queued(1, online=True)])
    entry = queue.due_players(A, 1, None, 10)[0]
    queue.drop_if_idle(A, 1, entry.sk)
    assert queue.due_players(A, 1, None, 10) == [entry]
    queue.delete_found(A, 1, queue.pointers(A, 1, [1]))
    queue.drop_if_idle(A, 1, entry.sk)
    assert queue.due_players(A, 1, None, 10) == []


# --- webhook records ----------------------------------------------------------------------------


def webhooks(table: Table) -> WebhookRepository:
    return WebhookRepository(table, get_services().secrets)


def store_endpoint(table: Table, box: SecretBox, url: str = "https://hooks.example/a") -> WebhookEndpoint:
    endpoint = WebhookEndpoint.model_validate({"id": 1, "url": url, "events": [], "secret": "s3cret"})
    DefinitionRepository(table).overwrite(
        [AccountRepository(table).webhook_item(A, endpoint, partial(seal, box))]
    )
    return endpoint


def test_endpoints_open_their_secret_and_validation_needs_the_same_url(table: Table) -> None:
    repo = webhooks(table)
    endpoint = store_endpoint(table, repo.secrets)
    [found] = repo.endpoints(A)
    assert found.secret == "s3cret" and not found.validated
    moved = endpoint.model_copy(update={"url": "https://hooks.example/b"})
    assert not repo.mark_validated(A, moved)
    assert repo.mark_validated(A, endpoint)
    assert repo.endpoints(A)[0].validated


def test_a_claim_is_taken_once_released_by_its_holder_and_ends_delivered(table: Table) -> None:
    repo = webhooks(table)
    lease = timedelta(seconds=30)
    first = repo.claim(A, "evt", "payment.completed", 1, lease, NOW)
    assert first.state is ClaimState.CLAIMED and first.attempt == 1
    assert repo.claim(A, "evt", "payment.completed", 1, lease, NOW).state is ClaimState.BUSY
    failure = Failure(NOW, "https://hooks.example/a", "HTTP 503")
    repo.release(A, "evt", 1, "not-the-token", failure)  # someone else's release changes nothing
    assert repo.claim(A, "evt", "payment.completed", 1, lease, NOW).state is ClaimState.BUSY
    assert repo.failed(A, 10) == []
    repo.release(A, "evt", 1, first.token, failure)
    [failing] = repo.failed(A, 10)
    assert (failing.event_id, failing.endpoint_id, failing.attempts) == ("evt", 1, 1)
    assert (failing.error, failing.url, failing.failed_at) == ("HTTP 503", "https://hooks.example/a", NOW)
    second = repo.claim(A, "evt", "payment.completed", 1, lease, NOW)
    assert second.state is ClaimState.CLAIMED and second.attempt == 2
    # A lease that ran out may be taken over.
    assert repo.claim(A, "evt", "payment.completed", 1, lease, NOW + lease * 2).attempt == 3
    repo.mark_delivered(A, "evt", 1, NOW)
    assert repo.failed(A, 10) == []  # delivered at last: no longer needs attention
    assert repo.claim(A, "evt", "payment.completed", 1, lease, NOW + lease * 9).state is ClaimState.DELIVERED


def test_failing_deliveries_are_listed_latest_failure_first_per_account(table: Table) -> None:
    repo = webhooks(table)
    lease = timedelta(seconds=30)
    for minute, (account, event) in enumerate([(A, "e1"), (A, "e2"), (A + 1, "other")]):
        claim = repo.claim(account, event, "payment.completed", 1, lease, NOW)
        at = NOW + timedelta(minutes=minute)
        repo.release(account, event, 1, claim.token, Failure(at, "https://hooks.example/a", "timeout"))
    assert [f.event_id for f in repo.failed(A, 10)] == ["e2", "e1"]
    assert [f.event_id for f in repo.failed(A, 1)] == ["e2"]
    assert [f.event_id for f in repo.failed(A + 1, 10)] == ["other"]


def test_attempts_are_kept_30_days_and_read_newest_first(table: Table) -> None:
    repo = webhooks(table)
    for minute in range(3):
        repo.record(
            A,
            DeliveryAttempt(
                event_id=f"e{minute}",
                event_type="payment.completed",
                endpoint_id=1,
                url="https://hooks.example/a",
                attempt=1,
                attempted_at=NOW + timedelta(minutes=minute),
                success=True,
                status_code=200,
            ),
        )
    assert [a.event_id for a in repo.history(A, 2)] == ["e2", "e1"]
    item = table.query(keys.account_pk(A), sk_prefix=keys.WEBHOOK_ATTEMPT_PREFIX)[0][0]
    assert int(item["expires_at"]) == int((NOW + timedelta(days=30)).timestamp())


# --- catalog import writes ----------------------------------------------------------------------


def test_definitions_overwrite_or_keep_runtime_state(demo: DemoStore) -> None:
    definitions = DefinitionRepository(demo.table)
    existing = definitions.existing_store(A)
    assert existing is not None and existing.public_token == demo.token
    assert definitions.existing_store(99) is None
    key = keys.key(keys.account_pk(A), "TEST#1")
    definitions.upsert({**key, "name": "first", "balance": 5}, keep=("balance",))
    definitions.upsert({**key, "name": "second", "balance": 9}, keep=("balance",))
    assert demo.table.get(key) == {**key, "name": "second", "balance": 5}
