"""The entitlement difference (webstore.discord.entitlements): roles from what stands now."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal

from webstore.discord.entitlements import (
    GuildRoles,
    RoleChange,
    RoleRule,
    guild_roles,
    role_change,
    standing_packages,
)
from webstore.domain.payment_status import PaymentStatus
from webstore.recurring import RecurringPayment, RecurringStatus, TimedPackage
from webstore.repo.payments import PaymentLine, PaymentRecord

NOW = datetime(2026, 6, 1, 12, tzinfo=UTC)
STEVE, ALEX = 7, 8
VIP, MVP, CRATE, RANK = 101, 102, 103, 104
G = "900"


def payment(
    n: int,
    *packages: int,
    to: int = STEVE,
    status: PaymentStatus = PaymentStatus.COMPLETE,
    recurring: str | None = None,
) -> PaymentRecord:
    return PaymentRecord(
        id=n,
        transaction_id=f"tbx-{n}",
        account_id=1,
        status=status,
        amount=Decimal(5),
        currency="EUR",
        username_id=STEVE,
        username="steve",
        lines=[
            PaymentLine(package_id=p, category_id=1, name=str(p), username_id=to, username="x")
            for p in packages
        ],
        recurring_payment_reference=recurring,
        idempotency_key=f"k{n}",
        created_at=NOW,
        updated_at=NOW,
    )


def subscription(reference: str, status: RecurringStatus, *packages: int) -> RecurringPayment:
    return RecurringPayment(
        reference=reference,
        account_id=1,
        username_id=STEVE,
        username="steve",
        lines=[
            {
                "package_id": p,
                "category_id": 1,
                "name": str(p),
                "price": Decimal(5),
                "username_id": STEVE,
                "username": "s",
            }
            for p in packages
        ],
        amount=Decimal(5),
        currency="EUR",
        period_length=1,
        period_unit="month",
        status=status,
        created_at=NOW,
        updated_at=NOW,
        last_payment_id=1,
        initial_payment_id=1,
    )


def timer(package: int, expires: datetime, expired: bool = False) -> TimedPackage:
    return TimedPackage(
        account_id=1, username_id=STEVE, username="steve", package_id=package, payment_id=1,
        expires_at=expires, expired=expired, updated_at=NOW,
    )  # fmt: skip


def test_a_one_off_stands_until_refunded_or_charged_back() -> None:
    assert standing_packages(STEVE, [payment(1, CRATE)], [], [], NOW) == {CRATE: True}
    for status in (PaymentStatus.REFUND, PaymentStatus.CHARGEBACK):
        assert standing_packages(STEVE, [payment(1, CRATE, status=status)], [], [], NOW) == {CRATE: False}


def test_a_subscription_stands_while_ongoing_past_due_included() -> None:
    paid = [payment(1, VIP, recurring="tbx-1"), payment(2, VIP, recurring="tbx-1")]  # first + renewal
    for status, stands in (
        (RecurringStatus.ACTIVE, True),
        (RecurringStatus.PAST_DUE, True),
        (RecurringStatus.CANCELLED, False),
        (RecurringStatus.EXPIRED, False),
    ):
        assert standing_packages(STEVE, paid, [subscription("tbx-1", status, VIP)], [], NOW) == {VIP: stands}


def test_a_timed_package_stands_until_its_timer() -> None:
    paid = [payment(1, RANK)]
    assert standing_packages(STEVE, paid, [], [timer(RANK, NOW + timedelta(days=1))], NOW) == {RANK: True}
    assert standing_packages(STEVE, paid, [], [timer(RANK, NOW - timedelta(seconds=1))], NOW) == {RANK: False}
    assert standing_packages(STEVE, paid, [], [timer(RANK, NOW + timedelta(days=1), expired=True)], NOW) == {
        RANK: False
    }


def test_a_gift_counts_for_its_receiver_only() -> None:
    assert standing_packages(STEVE, [payment(1, VIP, to=ALEX)], [], [], NOW) == {}
    assert standing_packages(ALEX, [payment(1, VIP, to=ALEX)], [], [], NOW) == {VIP: True}


def test_any_standing_line_keeps_the_package() -> None:
    paid = [payment(1, VIP, status=PaymentStatus.REFUND), payment(2, VIP)]
    assert standing_packages(STEVE, paid, [], [], NOW) == {VIP: True}


RULES = [
    RoleRule(VIP, G, frozenset({"r-vip", "r-supporter"})),
    RoleRule(MVP, G, frozenset({"r-mvp", "r-supporter"})),
    RoleRule(CRATE, G, frozenset({"r-crate"}), remove_on_end=False),
]


def test_wanted_kept_and_managed_per_guild() -> None:
    roles = guild_roles(RULES, {VIP: True, MVP: False, CRATE: False})
    assert roles == {
        G: GuildRoles(
            wanted=frozenset({"r-vip", "r-supporter"}),
            kept=frozenset({"r-crate"}),
            managed=frozenset({"r-vip", "r-mvp", "r-supporter", "r-crate"}),
        )
    }


def test_first_purchase_grants_and_a_renewal_sends_nothing() -> None:
    roles = guild_roles(RULES, {VIP: True})[G]
    assert role_change(roles, {"r-other"}) == RoleChange(grant=frozenset({"r-vip", "r-supporter"}))
    assert role_change(roles, {"r-other", "r-vip", "r-supporter"}).empty


def test_ending_one_package_keeps_a_role_another_still_grants() -> None:
    held = {"r-vip", "r-mvp", "r-supporter"}
    change = role_change(guild_roles(RULES, {VIP: False, MVP: True})[G], held)
    assert change == RoleChange(revoke=frozenset({"r-vip"}))
    change = role_change(guild_roles(RULES, {VIP: False, MVP: False})[G], {"r-mvp", "r-supporter"})
    assert change == RoleChange(revoke=frozenset({"r-mvp", "r-supporter"}))


def test_roles_the_store_does_not_manage_are_never_touched() -> None:
    change = role_change(guild_roles(RULES, {VIP: False})[G], {"r-vip", "r-moderator"})
    assert change == RoleChange(revoke=frozenset({"r-vip"}))


def test_remove_on_end_off_keeps_the_role_without_granting_it_again() -> None:
    roles = guild_roles(RULES, {CRATE: False})[G]
    assert role_change(roles, {"r-crate"}).empty
    assert role_change(roles, set()).empty  # removed by hand: not granted again


def test_a_role_removed_by_hand_is_granted_again_while_it_stands() -> None:
    assert role_change(guild_roles(RULES, {VIP: True})[G], {"r-supporter"}) == RoleChange(
        grant=frozenset({"r-vip"})
    )


def test_a_reconciliation_takes_away_only_what_the_store_granted() -> None:
    roles = guild_roles(RULES, {VIP: False})[G]
    # Discord says the member holds r-vip and r-mvp; the store granted r-vip only (r-mvp by hand).
    assert role_change(roles, {"r-vip", "r-mvp"}, applied={"r-vip"}) == RoleChange(
        revoke=frozenset({"r-vip"})
    )
    assert role_change(roles, {"r-mvp"}, applied=set()).empty
