"""Identifiers and table keys: every key format in one place (see docs/data-model.md).

Public identifiers carry the account id so that a request can name every item it needs before
its first round trip: `{account36}-{random}` for public tokens and basket idents,
`tbx-{paymentId}-{random}` for transaction ids. The random part is what makes them unguessable;
the account id only routes.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import uuid
import zlib
from collections.abc import Callable
from datetime import UTC, date, datetime

from webstore.errors import NotFound

INT32_MAX = 2_147_483_647
_B36 = "0123456789abcdefghijklmnopqrstuvwxyz"
_PUBLIC_ID = re.compile(r"^([0-9a-z]{1,7})-([0-9a-f]{32})$")
_TXN = re.compile(r"^tbx-([0-9]{1,10})-([0-9a-f]{8})$")
_PACKAGE_IDENT = re.compile(r"^(pkg|dyn)_([0-9]{1,10})_([0-9]{1,10})$")


# --- public identifiers -------------------------------------------------------------------


def base36(number: int) -> str:
    if number < 0:
        raise ValueError("negative")
    digits = ""
    while True:
        number, rest = divmod(number, 36)
        digits = _B36[rest] + digits
        if number == 0:
            return digits


def new_public_token(account_id: int) -> str:
    return f"{base36(account_id)}-{secrets.token_hex(16)}"


def new_basket_ident(account_id: int) -> str:
    return f"{base36(account_id)}-{secrets.token_hex(16)}"


def account_of(public_id: str, what: str = "Store") -> int:
    """The account a public token or basket ident belongs to; NotFound if it is not ours."""
    match = _PUBLIC_ID.match(public_id or "")
    if not match:
        raise NotFound(f"{what} not found")
    account_id = int(match.group(1), 36)
    if not 1 <= account_id <= INT32_MAX:
        raise NotFound(f"{what} not found")
    return account_id


def new_transaction_id(payment_id: int) -> str:
    return f"tbx-{payment_id}-{secrets.token_hex(4)}"


def payment_id_of(transaction_id: str) -> int:
    match = _TXN.match(transaction_id or "")
    if not match or not 1 <= int(match.group(1)) <= INT32_MAX:
        raise NotFound("Payment not found")
    return int(match.group(1))


def package_ident(category_id: int, package_id: int, *, dynamic: bool = False) -> str:
    return f"{'dyn' if dynamic else 'pkg'}_{category_id}_{package_id}"


def parse_package_ident(value: str) -> tuple[str, int, int] | None:
    """(prefix, category id, package id) for our own idents; None for anything else."""
    match = _PACKAGE_IDENT.match(value)
    if not match:
        return None
    return match.group(1), int(match.group(2)), int(match.group(3))


def new_secret() -> str:
    return secrets.token_hex(20)


def hash_secret(secret: str) -> str:
    """Secrets and API keys are stored and looked up by this hash, never in the clear."""
    return hashlib.sha256(secret.encode()).hexdigest()


def secret_matches(secret: str, expected_hash: str) -> bool:
    return hmac.compare_digest(hash_secret(secret), expected_hash)


def player_uuid(username: str) -> str:
    """The demo platform's stable player UUID: the offline-mode UUID of the username."""
    return str(uuid.UUID(bytes=_offline_uuid_bytes(username)))


def _offline_uuid_bytes(username: str) -> bytes:
    digest = bytearray(hashlib.md5(f"OfflinePlayer:{username}".encode()).digest())
    digest[6] = (digest[6] & 0x0F) | 0x30  # version 3
    digest[8] = (digest[8] & 0x3F) | 0x80  # RFC 4122 variant
    return bytes(digest)


# --- table keys ---------------------------------------------------------------------------
# Store partition: everything a storefront read needs, ordered so that each read is one
# contiguous SK range that ends or starts at the store item (`5STORE`).

STORE_ITEM = "5STORE"


def _n(number: int) -> str:
    return f"{number:010d}"


def id_range(sk_of: Callable[[int], str], first: int = 1, last: int = INT32_MAX) -> tuple[str, str]:
    """The SK range of a group keyed by fixed-width ids (`coupon_sk`, `ban_sk`, …), first..last."""
    return sk_of(first), sk_of(last)


def id_of(sk: str) -> int:
    """The id at the end of a fixed-width id SK (`COUPON#0000000007` -> 7)."""
    return int(sk.rsplit("#", 1)[1])


def store_pk(account_id: int) -> str:
    return f"STORE#{account_id}"


def page_sk(page_id: int) -> str:
    return f"1PAGE#{_n(page_id)}"


def goal_sk(goal_id: int) -> str:
    return f"2GOAL#{_n(goal_id)}"


STATS_ITEM = "4STATS"


def category_sk(category_id: int) -> str:
    return f"6CAT#{_n(category_id)}"


def package_sk(package_id: int) -> str:
    return f"7PKG#{_n(package_id)}"


# Bounds of the store partition's groups, for the contiguous reads (SK BETWEEN first AND last).
PAGES_FIRST = "1PAGE#"
GOALS_FIRST = "2GOAL#"
CATEGORIES_LAST = "6CAT#~"
PACKAGES_LAST = "7PKG#~"


# Account partition: what the operator interface and payments use.


def account_pk(account_id: int) -> str:
    return f"ACCOUNT#{account_id}"


SEQUENCES_ITEM = "SEQ"


def coupon_sk(coupon_id: int) -> str:
    return f"COUPON#{_n(coupon_id)}"


def coupon_code_sk(code: str) -> str:
    return f"COUPONCODE#{code.upper()}"


def giftcard_sk(card_number: str) -> str:
    return f"GIFTCARD#{card_number.upper()}"


def giftcards_of_account(account_id: int) -> str:
    """GSI1 partition of an account's gift cards (GSI1SK: the card id, 10 digits): the
    operator interface finds cards by id, baskets by number (`giftcard_sk`)."""
    return f"GIFTCARDS#{account_id}"


def giftcard_gsi1sk(card_id: int) -> str:
    return _n(card_id)


def creator_code_sk(code: str) -> str:
    return f"CREATOR#{code.upper()}"


def payment_sk(payment_id: int) -> str:
    return f"PAY#{_n(payment_id)}"


def player_sk(player_id: int) -> str:
    return f"PLAYER#{_n(player_id)}"


def player_name_sk(username: str) -> str:
    return f"PLAYERNAME#{username.lower()}"


def player_uuid_sk(uuid_value: str) -> str:
    return f"PLAYERUUID#{uuid_value.lower()}"


def tier_sk(tier_id: int) -> str:
    return f"TIER#{_n(tier_id)}"


def tiers_of_player(account_id: int, username_id: int) -> str:
    """GSI1 partition of one player's tiers in one store (GSI1SK: the category id, 10 digits)."""
    return f"TIERS#{account_id}#{username_id}"


def tier_category_gsi1sk(category_id: int) -> str:
    """GSI1SK of a tier in its player's partition (`tiers_of_player`): its category, sorted."""
    return _n(category_id)


def purchases_sk(username_id: int) -> str:
    """A player's purchase counts per package (`p{package id}` attributes), for user_limit."""
    return f"PURCHASES#{_n(username_id)}"


def purchased_attribute(package_id: int) -> str:
    """The purchases item's count of one package (user_limit)."""
    return f"p{package_id}"


# The coupon code item's count of redemptions by everyone (coupon expire_limit).
COUPON_REDEMPTIONS = "redemptions"


def ban_sk(ban_id: int) -> str:
    return f"BAN#{_n(ban_id)}"


SERVER_PREFIX = "SERVER#"


def server_sk(server_id: int) -> str:
    return f"{SERVER_PREFIX}{_n(server_id)}"


WEBHOOK_PREFIX = "WEBHOOK#"


def webhook_sk(endpoint_id: int) -> str:
    return f"{WEBHOOK_PREFIX}{_n(endpoint_id)}"


WEBHOOK_ATTEMPT_PREFIX = "WHATTEMPT#"


WEBHOOK_CLAIM_PREFIX = "WHDELIVERY#"


def webhook_claim_sk(event_id: str, endpoint_id: int) -> str:
    """One event's delivery to one endpoint: the claim while posting, `delivered` after a 2xx."""
    return f"{WEBHOOK_CLAIM_PREFIX}{event_id}#{endpoint_id:010d}"


def webhook_log_gsi1pk(account_id: int, endpoint_id: int) -> str:
    """GSI1 partition of one endpoint's deliveries (the claim items), for the panel's delivery log."""
    return f"WHLOG#{account_id}#{endpoint_id:010d}"


def webhook_log_gsi1sk(first_attempt: datetime, event_id: str) -> str:
    """A delivery in its endpoint's log: ordered by its first attempt (newest first when read back)."""
    return f"{first_attempt.strftime('%Y%m%dT%H%M%S.%fZ')}#{event_id}"


def webhook_attempt_sk(at: datetime, event_id: str, endpoint_id: int, attempt: int) -> str:
    """One delivery attempt, ordered by time (the delivery history reads them newest first)."""
    moment = at.strftime("%Y%m%dT%H%M%S.%fZ")
    return f"{WEBHOOK_ATTEMPT_PREFIX}{moment}#{event_id}#{endpoint_id:010d}#{attempt:03d}"


PROCESSOR_EVENT_PREFIX = "PROCEVT#"


def processor_last_event_sk(gateway: str) -> str:
    """When the store last received a verified webhook event of the processor (the Go live page)."""
    return f"PROCLAST#{gateway}"


def processor_event_sk(gateway: str, name: str) -> str:
    """A processor webhook event handled (by its event id), or a fact about a processor object
    that later events must see (a dispute closed): one item each, removed by TTL."""
    return f"{PROCESSOR_EVENT_PREFIX}{gateway}#{name}"


SETUP_ITEM = "SETUP"  # the panel's first-sign-in setup: the steps done, skipped or finished


# Global partitions.


def basket_key(ident: str) -> dict[str, str]:
    return {"PK": f"BASKET#{ident}", "SK": "BASKET"}


def checkout_attempt_key(ident: str, attempt_key: str) -> dict[str, str]:
    """One hosted-checkout payment attempt of a basket (idempotency of the pay form)."""
    return {"PK": f"BASKET#{ident}", "SK": f"ATTEMPT#{attempt_key}"}


def secret_key(secret_hash: str) -> dict[str, str]:
    return {"PK": f"SECRET#{secret_hash}", "SK": "SECRET"}


def user_key(username: str) -> dict[str, str]:
    """The platform-wide player registry, offline identities: one stable username_id per username."""
    return {"PK": f"USER#{username.lower()}", "SK": "USER"}


def online_name_key(username: str) -> dict[str, str]:
    """Online identities (Minecraft accounts): what a username resolved to, and when. The ':'
    cannot occur in a username, so these never meet the offline keys above."""
    return {"PK": f"USER#online:{username.lower()}", "SK": "USER"}


def online_account_key(account_uuid: str) -> dict[str, str]:
    """Online identities: the one username_id of a Minecraft account (by its UUID, 32 hex)."""
    return {"PK": f"USERACCOUNT#{account_uuid.replace('-', '').lower()}", "SK": "USER"}


USERS_SEQUENCE_KEY = {"PK": "SEQ#USERS", "SK": "SEQ"}


OUTBOX_PREFIX = "OUTBOX#"
OUTBOX_ENTITY = "outbox"


def outbox_key(event_id: str) -> dict[str, str]:
    """A domain event written in the transaction of the change it describes (the outbox): its
    own partition per event, so writes spread; the table's stream publishes it (AWS: EventBridge
    Pipes; locally webstore.local_stream) and TTL removes it."""
    return {"PK": f"{OUTBOX_PREFIX}{event_id}", "SK": "OUTBOX"}


def queue_pk(account_id: int, server_id: int) -> str:
    """One server's command queue (docs/operator.md): state, due players, commands, pointers."""
    return f"QUEUE#{account_id}#{server_id}"


# Queue partition SKs. Fixed-width ids keep each group one contiguous, ordered SK range.
QUEUE_STATE = "STATE"
DUE_PREFIX = "DUE#"
OFFLINE_PREFIX = "OFF#"
ONLINE_PREFIX = "ON#"


def due_sk(username_id: int) -> str:
    """A player with online commands waiting (`pending` counts them)."""
    return f"{DUE_PREFIX}{_n(username_id)}"


def offline_command_sk(command_id: int) -> str:
    return f"{OFFLINE_PREFIX}{_n(command_id)}"


def due_range(after_sk: str | None) -> tuple[str, str]:
    """The due-player SKs after `after_sk` (a cycle's cursor), or all of them."""
    lower = after_sk + "!" if after_sk else DUE_PREFIX  # "!" sorts right after the cursor itself
    return lower, DUE_PREFIX + "~"


def queued_for_player_gsi1pk(account_id: int, username_id: int) -> str:
    """GSI1 partition of one player's waiting commands on every server of a store (the panel's
    queue by player; GSI1SK: `queued_for_player_gsi1sk`)."""
    return f"QPLAYER#{account_id}#{_n(username_id)}"


def queued_for_player_gsi1sk(server_id: int, command_id: int) -> str:
    return f"{_n(server_id)}#{_n(command_id)}"


def queue_resend_sk(request_id: str) -> str:
    """A panel resend request that was carried out (account partition, expiring): a form posted
    twice queues its commands once."""
    return f"QRESEND#{request_id}"


def online_commands_prefix(username_id: int) -> str:
    return f"{ONLINE_PREFIX}{_n(username_id)}#"


def online_command_sk(username_id: int, command_id: int) -> str:
    """Online commands grouped by player: one player's are one Query."""
    return f"{online_commands_prefix(username_id)}{_n(command_id)}"


def command_pointer_sk(command_id: int) -> str:
    """Command id -> where the command lives (so deletes by id need no Query)."""
    return f"CMD#{_n(command_id)}"


# Account partition, operator side.


def order_sk(idempotency_key: str) -> str:
    """Fulfilment's idempotency record: one per order, naming the payment it created."""
    return f"ORDER#{idempotency_key}"


def coupon_use_sk(coupon_id: int, username_id: int) -> str:
    """How often one player redeemed one coupon (the coupon's per-user limit)."""
    return f"COUPONUSE#{_n(coupon_id)}#{_n(username_id)}"


def spend_sk(month: str, username_id: int) -> str:
    """A player's spend in one month (YYYY-MM): the store stats' top customer."""
    return f"SPEND#{month}#{_n(username_id)}"


def day_stats_sk(day: date) -> str:
    """A store's figures of one UTC day (payments, revenue, refunds, per package): the dashboard
    reads the days it shows by key (docs/data-model.md, "Dashboard aggregates")."""
    return f"DAYSTATS#{day.isoformat()}"


def subscription_count_sk(shard: int) -> str:
    """One shard of the store's count of ongoing subscriptions (the shard of a recurring payment:
    its schedule shard, so the processor's runs, one per schedule shard, do not contend)."""
    return f"SUBCOUNT#{shard:02d}"


def failed_deliveries_of_account(account_id: int) -> str:
    """GSI2 partition of an account's webhook deliveries whose last attempt failed (GSI2SK: the
    failure's time, event and endpoint); a delivery leaves it when it succeeds."""
    return f"WHFAILED#{account_id}"


def tier_slot_sk(username_id: int, category_id: int) -> str:
    """A player's one tier in one tiered category -> its tier id (keeps it unique)."""
    return f"TIERSLOT#{_n(username_id)}#{_n(category_id)}"


def tier_upgrade_sk(tier_id: int, package_id: int, period: str) -> str:
    """Under the account: the claim on charging one tier's upgrade to one package in one
    billing period (`period`: the period's end, compact), so concurrent requests charge once."""
    return f"UPGRADE#{_n(tier_id)}#{_n(package_id)}#{period}"


def payments_of_player(account_id: int, username_id: int) -> str:
    """GSI1 partition: one player's payments (GSI1SK = payment SK) and player item (GSI1SK `~`)."""
    return f"PLAYERPAY#{account_id}#{username_id}"


PLAYER_GSI1SK = "~PLAYER"


def staff_sk(staff_id: str) -> str:
    """A control-panel staff member in its store's account partition (`ACCOUNT#a`)."""
    return f"STAFF#{staff_id}"


STAFF_PREFIX = "STAFF#"


def staff_email_pk(email: str) -> str:
    """An address's sign-in lookups: one item per store where it is staff (unique per store)."""
    return f"STAFFEMAIL#{email.strip().lower()}"


def staff_email_key(email: str, account_id: int) -> dict[str, str]:
    """Which staff member an e-mail address is in one store."""
    return {"PK": staff_email_pk(email), "SK": f"ACCOUNT#{_n(account_id)}"}


# Tables written before addresses were unique per store hold one lookup per address under this
# SK (naming its store and member): still read by sign-in, removed with its member.
LEGACY_STAFF_EMAIL_SK = "STAFFEMAIL"


def legacy_staff_email_key(email: str) -> dict[str, str]:
    return {"PK": staff_email_pk(email), "SK": LEGACY_STAFF_EMAIL_SK}


def throttle_prefix(scope: str) -> str:
    """The PK prefix of one scope's throttle marks (IAM can grant writes under it alone)."""
    return f"THROTTLE#{scope}#"


def throttle_key(scope: str, client: str) -> dict[str, str]:
    return {"PK": f"{throttle_prefix(scope)}{client}", "SK": "THROTTLE"}


def key(pk: str, sk: str) -> dict[str, str]:
    return {"PK": pk, "SK": sk}


# --- player events (POST /events): compact batches with a TTL, and where players were last seen ---


def events_pk(account_id: int, server_id: int) -> str:
    """One server's join/leave event batches (SK: `event_batch_sk`), each expiring by TTL."""
    return f"EVENTS#{account_id}#{server_id}"


def event_batch_sk(received_at: int, batch_ref: str) -> str:
    return f"BATCH#{received_at:012d}#{batch_ref}"


def last_seen_sk(player_ref: str) -> str:
    """Under the account: where a player (`name:<lower name>` or `id:<platform id>`) last joined."""
    return f"SEEN#{player_ref.lower()}"


# --- subscriptions over time (webstore.recurring, docs/subscriptions.md) ---


def recurring_payment_sk(reference: str) -> str:
    """Under the account: a subscription's recurring payment, by its first transaction id."""
    return f"RECURRING#{reference}"


def timed_package_sk(username_id: int, package_id: int) -> str:
    """Under the account: one player's timer of one timed one-off package."""
    return f"TIMED#{_n(username_id)}#{_n(package_id)}"


SCHEDULE_PREFIX = "SCHEDULE#"


def schedule_pk(shard: int) -> str:
    """One of the schedule's fixed shard partitions (PK prefix: IAM can grant it alone)."""
    return f"{SCHEDULE_PREFIX}{shard:02d}"


NOTICE_PREFIX = "NOTICE#"


def notice_pk(shard: int) -> str:
    """One of the renewal notices' shard partitions (webstore.repo.renewal_notices): apart from
    the schedule's, so its Queries, backlog and alarm never read them."""
    return f"{NOTICE_PREFIX}{shard:02d}"


def schedule_shard(account_id: int, reference: str, shards: int) -> int:
    """Which shard a record's schedule items live in (stable: the same record, the same shard)."""
    return zlib.crc32(f"{account_id}#{reference}".encode()) % shards


def schedule_sk(due: str, kind: str, account_id: int, reference: str) -> str:
    """`due` is `recurring.schedule_moment(...)`: items sort by when they are due."""
    return f"{due}#{kind}#{_n(account_id)}#{reference}"


def schedule_due_range(now: str) -> tuple[str, str]:
    """The SKs of everything due at or before `now` (a `schedule_moment`)."""
    return "0", f"{now}#~"


# --- GSI2: payments by status and time, subscriptions by age (the panel's searches) ---


def payments_of_status(account_id: int, status: str) -> str:
    """GSI2 partition of one store's payments in one status (GSI2SK: `payment_time_gsi2sk`);
    a status change moves the payment to its new status's partition in the same update."""
    return f"PAYSTATUS#{account_id}#{status}"


def payment_time_gsi2sk(created_at: datetime, payment_id: int) -> str:
    """When a payment was made (UTC, µs), then its id: newest first is descending, a date range
    is one BETWEEN, and two payments of the same instant still differ."""
    return f"{created_at.astimezone(UTC).strftime('%Y%m%dT%H%M%S.%fZ')}#{_n(payment_id)}"


def day_start_gsi2sk(day: str) -> str:
    """The lowest `payment_time_gsi2sk` of a UTC day (`YYYYMMDD`)."""
    return f"{day}T"


def day_end_gsi2sk(day: str) -> str:
    """Past the highest `payment_time_gsi2sk` of a UTC day (`YYYYMMDD`)."""
    return f"{day}T~"


def recurring_of_account(account_id: int) -> str:
    """GSI2 partition of one store's recurring payments (GSI2SK: their first payment's id)."""
    return f"RECURRINGS#{account_id}"


def recurring_gsi2sk(initial_payment_id: int) -> str:
    return _n(initial_payment_id)


def email_digest(email: str) -> str:
    """An e-mail address as a key part: the SHA-256 of its trimmed, lower-cased form (32 hex
    characters), so no key holds an address."""
    import hashlib

    return hashlib.sha256(email.strip().lower().encode()).hexdigest()[:32]


def email_payments_pk(account_id: int, email: str) -> str:
    """The partition of one store's payments made with one e-mail address (SK: `payment_sk`),
    read by "Find my subscriptions"."""
    return f"{account_pk(account_id)}#EMAIL#{email_digest(email)}"


def sign_in_link_key(account_id: int, nonce: str) -> dict[str, str]:
    """A "Find my subscriptions" sign-in link's single-use item (deleted by TTL)."""
    return {"PK": f"{account_pk(account_id)}#SIGNIN#{nonce}", "SK": "SIGNIN"}


def steam_nonce_key(nonce: str) -> dict[str, str]:
    """A Steam OpenID assertion's `response_nonce`, claimed once (no replayed sign-in)."""
    return {"PK": f"STEAMNONCE#{nonce}", "SK": "NONCE"}
