"""Webhook records in the one table, all under the account partition (`ACCOUNT#<id>`).

| item                         | SK                                                        | TTL     |
|------------------------------|-----------------------------------------------------------|---------|
| endpoint (catalog import)    | `WEBHOOK#<endpoint id:010>`                               | none    |
| delivery claim / done marker | `WHDELIVERY#<event id>#<endpoint id:010>`                 | 30 days |
| failing delivery (GSI1)      | the claim item, its last POST failed: `WHFAILED#<account>` | 30 days |
| delivery attempt (history)   | `WHATTEMPT#<UTC time, µs>#<event id>#<endpoint id:010>#<n:03>` | 30 days |

The claim item is the idempotency record: a conditional UpdateItem takes a short lease on
(event, endpoint) before the POST and marks it `delivered` after a 2xx, so a redelivered message
skips endpoints that already got the event and two concurrent copies never both POST.

The claim item is also the panel's delivery: the claim write keeps the event (type, date, its
subject up to MAX_SUBJECT_CHARS, so it can be published again) and puts the item in its
endpoint's log on GSI1 (`WHLOG#<account>#<endpoint>`, by first attempt); the write after the POST
(`mark_delivered`, `release`) adds the attempt's outcome (status, latency, an excerpt of the
response) to `attempt_log`, a map of LOG_SLOTS slots by attempt number, so the item stays bounded
however often the event is retried. No write is added to a delivery.
"""

from __future__ import annotations

import contextlib
import json
import re
import secrets
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from functools import partial

from aws_lambda_powertools import Logger
from pydantic import BaseModel, ValidationError

from webstore import keys
from webstore.catalog import WebhookEndpoint
from webstore.db import GSI1, GSI2, ConditionFailed, Item, Table, Transaction, from_item, start_read
from webstore.errors import Conflict, Invalid, NotFound
from webstore.keys import account_pk, key, webhook_sk
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import Audit
from webstore.repo.catalog_edits import CatalogEdits
from webstore.repo.catalog_revision import bump_in
from webstore.repo.sequences import IdAllocation, SequenceRepository
from webstore.sealing import open_sealed, seal
from webstore.secret_box import SealBroken, SecretBox

logger = Logger(child=True)

_WAS_ON = "disabled = :was"
_WAS_OFF = "(attribute_not_exists(disabled) OR disabled = :was)"

RETENTION = timedelta(days=30)
MAX_HISTORY = 200
# A delivery keeps the outcomes of its last LOG_SLOTS attempts, each response cut to EXCERPT_CHARS.
LOG_SLOTS = 20
EXCERPT_CHARS = 300
# A larger subject is not kept on the delivery (it cannot be redelivered from the panel then).
MAX_SUBJECT_CHARS = 64_000


class DeliveryAttempt(BaseModel):
    """One POST (or refusal) as an operator sees it in the delivery history."""

    event_id: str
    event_type: str
    endpoint_id: int
    url: str
    attempt: int
    attempted_at: datetime
    success: bool
    status_code: int | None = None
    error: str | None = None
    latency_ms: int = 0
    response_excerpt: str | None = None


class AttemptOutcome(BaseModel):
    """One POST of a delivery as its attempt log keeps it (the response excerpt is what the
    receiver answered: untrusted text, escaped wherever it is shown)."""

    attempt: int
    at: datetime
    success: bool
    status_code: int | None = None
    error: str | None = None
    latency_ms: int = 0
    excerpt: str = ""


class Delivery(BaseModel):
    """One event's delivery to one endpoint (the claim item), as the panel shows it."""

    event_id: str
    event_type: str
    endpoint_id: int
    status: str  # pending (not delivered yet: failing, or in flight) or delivered
    attempts: int = 0
    first_attempt_at: datetime | None = None
    delivered_at: datetime | None = None
    event_date: str | None = None
    event_subject: str | None = None  # the subject as JSON; None: too large to keep, or older
    last_success: bool | None = None
    last_status_code: int | None = None
    last_error: str | None = None
    attempt_log: dict[str, AttemptOutcome] = {}

    @property
    def delivered(self) -> bool:
        return self.status == "delivered"

    @property
    def failed(self) -> bool:
        """Not delivered and its last attempt failed (a lease still held is in flight instead)."""
        return not self.delivered and self.last_success is False

    def outcomes(self) -> list[AttemptOutcome]:
        """The attempts kept, oldest first."""
        return sorted(self.attempt_log.values(), key=lambda o: o.attempt)


@dataclass(frozen=True)
class DeliveryPage:
    deliveries: list[Delivery]
    next_cursor: str | None


def excerpt(body: bytes) -> str:
    """The start of a response body as text (bytes that are not UTF-8 replaced), at most
    EXCERPT_CHARS characters."""
    text = body[: EXCERPT_CHARS * 4].decode("utf-8", errors="replace")
    return text[:EXCERPT_CHARS]


def _kept_subject(subject: dict[str, object] | None) -> str | None:
    if subject is None:
        return None
    encoded = json.dumps(subject, default=str, separators=(",", ":"))
    return encoded if len(encoded) <= MAX_SUBJECT_CHARS else None


def _log_entry(outcome: AttemptOutcome) -> dict[str, object]:
    return outcome.model_dump(mode="json")


class ClaimState(StrEnum):
    CLAIMED = "claimed"  # ours to deliver now
    DELIVERED = "delivered"  # an earlier attempt succeeded: skip
    BUSY = "busy"  # another worker holds the lease: retry later


@dataclass(frozen=True)
class Claim:
    state: ClaimState
    attempt: int = 0
    token: str = ""


@dataclass(frozen=True)
class Failure:
    """A failed POST, as the failing-deliveries list shows it."""

    at: datetime
    url: str
    error: str


class FailedDelivery(BaseModel):
    """A delivery (event, endpoint) not made yet whose last attempt failed (still retrying, or
    given up after the retries): what an owner should look at."""

    event_id: str
    event_type: str
    endpoint_id: int
    url: str = ""
    attempts: int
    failed_at: datetime
    error: str = ""


def _failed_delivery(item: Item) -> FailedDelivery:
    event_id = item["SK"].removeprefix("WHDELIVERY#").rsplit("#", 1)[0]
    return FailedDelivery(
        event_id=event_id,
        event_type=item.get("event_type", ""),
        endpoint_id=int(item["endpoint_id"]),
        url=item.get("url", ""),
        attempts=int(item.get("attempts", 0)),
        failed_at=datetime.fromisoformat(item["failed_at"]),
        error=item.get("failure_reason", ""),
    )


def attempt_sk(attempt: DeliveryAttempt) -> str:
    return keys.webhook_attempt_sk(
        attempt.attempted_at, attempt.event_id, attempt.endpoint_id, attempt.attempt
    )


def _ttl(now: datetime) -> int:
    return int((now + RETENTION).timestamp())


class WebhookRepository:
    def __init__(self, table: Table, secrets: SecretBox) -> None:
        self.table = table
        self.secrets = secrets

    # --- endpoints ---

    def endpoints(self, account_id: int, *, consistent: bool = False) -> list[WebhookEndpoint]:
        """The account's endpoints, their secrets opened (unreadable ones are logged and left out):
        one Query (paged only past 1 MB, i.e. never in practice)."""
        found: list[WebhookEndpoint] = []
        start: Item | None = None
        while True:
            items, start = self.table.query(
                account_pk(account_id), sk_prefix=keys.WEBHOOK_PREFIX, start_key=start, consistent=consistent
            )
            for item in items:
                try:
                    found.append(AccountRepository.webhook_endpoint(item, partial(open_sealed, self.secrets)))
                except (ValidationError, SealBroken):
                    logger.error("unreadable webhook endpoint", extra={"sk": item.get("SK")})
            if not start:
                return found

    def sealed_endpoints(self, account_id: int) -> list[WebhookEndpoint]:
        """The account's endpoints as stored, their secrets still sealed (for showing): one Query."""
        items, _ = self.table.query(account_pk(account_id), sk_prefix=keys.WEBHOOK_PREFIX)
        return [from_item(WebhookEndpoint, i) for i in items]

    def sealed_endpoint(
        self, account_id: int, endpoint_id: int, *, consistent: bool = False
    ) -> WebhookEndpoint | None:
        """One endpoint as stored, its secret still sealed: one GetItem."""
        item = self.table.get(key(account_pk(account_id), webhook_sk(endpoint_id)), consistent=consistent)
        return from_item(WebhookEndpoint, item) if item else None

    def opened(self, endpoint: WebhookEndpoint) -> WebhookEndpoint:
        """A sealed endpoint with its signing secret opened (SealBroken if it does not open)."""
        return endpoint.model_copy(update={"secret": open_sealed(self.secrets, endpoint.secret)})

    # --- the panel's changes to one endpoint, each with its audit entry in the transaction ---

    def create_endpoint(
        self, account_id: int, endpoint: WebhookEndpoint, audit: Callable[[WebhookEndpoint], Audit]
    ) -> WebhookEndpoint:
        """Store `endpoint` (its secret sealed) under the next free `webhook` id with
        `audit(created)`: the endpoints and the sequences read at once, then one transaction
        (again on contention). An id an endpoint already has (an import's) is skipped."""
        sequences = SequenceRepository(self.table)
        existing: Future[list[WebhookEndpoint]] = start_read(self.sealed_endpoints, account_id)
        first_read = start_read(sequences.read, account_id)
        taken = {e.id for e in existing.result()}

        def build(ids: IdAllocation) -> tuple[Transaction, WebhookEndpoint]:
            new_id = ids.take("webhook", above=max(taken, default=0))[0]
            created = endpoint.model_copy(update={"id": new_id})
            tx = Transaction(self.table)
            CatalogEdits(self.table).save_webhook(
                tx,
                account_id,
                created,
                self.secrets,
                new=True,
                fails=Conflict("The endpoint list changed meanwhile; try again"),
            )
            audit(created).add_to(tx, account_id)
            bump_in(tx, account_id)  # a catalog entity: forms and exports read before are stale
            return tx, created

        return sequences.write(account_id, build, first_read=first_read)

    def set_disabled(self, account_id: int, current: WebhookEndpoint, disabled: bool, audit: Audit) -> None:
        """Turn the endpoint off or on, on condition that it is still as on or off as `current`
        was read (one transaction with the audit entry and the catalog revision moved on)."""
        tx = Transaction(self.table)
        tx.update(
            key(account_pk(account_id), webhook_sk(current.id)),
            "SET disabled = :disabled",
            condition="attribute_exists(PK) AND "
            + (
                "disabled = :was"
                if current.disabled
                else "(attribute_not_exists(disabled) OR disabled = :was)"
            ),
            values={":disabled": disabled, ":was": current.disabled},
            fails=Conflict("The webhook endpoint changed meanwhile; reload and try again"),
        )
        audit.add_to(tx, account_id)
        bump_in(tx, account_id)  # a catalog entity: forms and exports read before are stale
        tx.commit()

    def rotate_secret(self, account_id: int, endpoint_id: int, secret: str, audit: Audit) -> None:
        """A new signing secret (sealed); the endpoint must pass the handshake again (one
        transaction with the audit entry and the catalog revision moved on)."""
        tx = Transaction(self.table)
        tx.update(
            key(account_pk(account_id), webhook_sk(endpoint_id)),
            "SET secret = :secret, validated = :no",
            condition="attribute_exists(PK)",
            values={":secret": seal(self.secrets, secret), ":no": False},
            fails=NotFound("Webhook endpoint not found"),
        )
        audit.add_to(tx, account_id)
        bump_in(tx, account_id)
        tx.commit()

    def mark_validated(self, account_id: int, endpoint: WebhookEndpoint) -> bool:
        """Validated only if the endpoint still has the URL we checked (a re-import may change it)."""
        try:
            self.table.update(
                key(account_pk(account_id), webhook_sk(endpoint.id)),
                "SET validated = :yes",
                condition="attribute_exists(PK) AND #url = :url",
                names={"#url": "url"},
                values={":yes": True, ":url": str(endpoint.url)},
            )
        except ConditionFailed:
            return False

        return True

    # --- idempotency claims ---

    def claim(
        self,
        account_id: int,
        event_id: str,
        event_type: str,
        endpoint_id: int,
        lease: timedelta,
        now: datetime,
        *,
        event_date: str | None = None,
        subject: dict[str, object] | None = None,
    ) -> Claim:
        """Take the (event, endpoint) lease unless it was delivered or someone else holds it.
        The same write keeps the event for the panel (its date and subject, the first attempt's
        time, the endpoint's log keys) and makes the attempt log."""
        token = secrets.token_hex(8)
        item_key = key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id))
        kept_subject = _kept_subject(subject)
        try:
            attributes = self.table.update(
                item_key,
                "SET #status = :pending, #lease = :lease, #claim = :token, #entity = :entity,"
                " #type = :type, #endpoint = :endpoint, #ttl = :ttl,"
                " #first = if_not_exists(#first, :now_iso), #log = if_not_exists(#log, :empty),"
                " GSI1PK = :log_pk, GSI1SK = if_not_exists(GSI1SK, :log_sk)"
                + (", #date = :date" if event_date else "")
                + (", #subject = :subject" if kept_subject else "")
                + " ADD #attempts :one",
                condition="attribute_not_exists(PK) OR (#status = :pending AND #lease < :now)",
                names={
                    "#status": "status",
                    "#lease": "lease_until",
                    "#claim": "claim",
                    "#entity": "entity",
                    "#type": "event_type",
                    "#endpoint": "endpoint_id",
                    "#ttl": "expires_at",
                    "#attempts": "attempts",
                    "#first": "first_attempt_at",
                    "#log": "attempt_log",
                    **({"#date": "event_date"} if event_date else {}),
                    **({"#subject": "event_subject"} if kept_subject else {}),
                },
                values={
                    ":pending": "pending",
                    ":lease": int((now + lease).timestamp()),
                    ":token": token,
                    ":entity": "webhook_delivery",
                    ":type": event_type,
                    ":endpoint": endpoint_id,
                    ":ttl": _ttl(now),
                    ":one": 1,
                    ":now": int(now.timestamp()),
                    ":now_iso": now.isoformat(),
                    ":empty": {},
                    ":log_pk": keys.webhook_log_gsi1pk(account_id, endpoint_id),
                    ":log_sk": keys.webhook_log_gsi1sk(now, event_id),
                    **({":date": event_date} if event_date else {}),
                    **({":subject": kept_subject} if kept_subject else {}),
                },
                return_values="ALL_NEW",
            )
        except ConditionFailed:
            current = self.table.get(item_key, consistent=True) or {}
            state = ClaimState.DELIVERED if current.get("status") == "delivered" else ClaimState.BUSY
            return Claim(state)
        return Claim(ClaimState.CLAIMED, int(attributes.get("attempts", 1)), token)

    def mark_delivered(
        self,
        account_id: int,
        event_id: str,
        endpoint_id: int,
        now: datetime,
        outcome: AttemptOutcome | None = None,
    ) -> None:
        expression, names, values = _outcome_update(outcome)
        self.table.update(
            key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id)),
            "SET #status = :delivered, delivered_at = :at"
            + expression
            + " REMOVE #lease, #claim, GSI2PK, GSI2SK",
            names={"#status": "status", "#lease": "lease_until", "#claim": "claim", **names},
            values={":delivered": "delivered", ":at": now.isoformat(), **values},
        )

    def release(
        self,
        account_id: int,
        event_id: str,
        endpoint_id: int,
        token: str,
        failure: Failure,
        outcome: AttemptOutcome | None = None,
    ) -> None:
        """Give the lease back after a failed POST so the next retry may claim at once, keep the
        attempt in the delivery's log, and list the delivery among the account's failing ones
        (GSI2 `WHFAILED#`, `failed`) until a later attempt succeeds."""
        expression, names, values = _outcome_update(outcome)
        moment = failure.at.strftime("%Y%m%dT%H%M%S.%fZ")
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id)),
                "SET #lease = :zero, GSI2PK = :failed, GSI2SK = :order, failed_at = :failed_at,"
                " failure_reason = :reason, #url = :url" + expression,
                condition="#claim = :token AND #status = :pending",
                names={
                    "#lease": "lease_until",
                    "#claim": "claim",
                    "#status": "status",
                    "#url": "url",
                    **names,
                },
                values={
                    ":zero": 0,
                    ":token": token,
                    ":pending": "pending",
                    ":failed": keys.failed_deliveries_of_account(account_id),
                    ":order": f"{moment}#{event_id}#{endpoint_id:010d}",
                    ":failed_at": failure.at.isoformat(),
                    ":reason": failure.error[:200],
                    ":url": failure.url,
                    **values,
                },
            )

    def failed(self, account_id: int, limit: int) -> list[FailedDelivery]:
        """The deliveries whose last attempt failed, most recent failure first (one Query of at
        most `limit` items on their GSI2 partition; delivered ones have left it)."""
        items, _ = self.table.query(
            keys.failed_deliveries_of_account(account_id), index=GSI2, forward=False, limit=limit
        )
        return [_failed_delivery(item) for item in items]

    # --- the panel's delivery log ---

    def delivery(self, account_id: int, endpoint_id: int, event_id: str) -> Delivery | None:
        """One delivery (GetItem)."""
        item = self.table.get(key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id)))
        return _delivery(item) if item else None

    def deliveries(
        self, account_id: int, endpoint_id: int, *, cursor: str | None = None, limit: int = 25
    ) -> DeliveryPage:
        """One endpoint's deliveries, newest first, `limit` after `cursor` (one Query on GSI1)."""
        start = self._log_start(account_id, endpoint_id, cursor) if cursor else None
        items, _ = self.table.query(
            keys.webhook_log_gsi1pk(account_id, endpoint_id),
            index=GSI1,
            forward=False,
            limit=limit + 1,
            start_key=start,
        )
        shown = items[:limit]
        return DeliveryPage(
            [_delivery(i) for i in shown], str(shown[-1]["GSI1SK"]) if len(items) > limit else None
        )

    def failed_since(
        self, account_id: int, endpoint_id: int, since: datetime, *, cursor: str | None, limit: int
    ) -> tuple[list[Delivery], str | None]:
        """Deliveries first attempted at or after `since` that are not delivered and whose last
        attempt failed, oldest first: one Query of at most `limit` items read (the filter keeps
        the failed ones) and where to go on from (None: the end)."""
        low = keys.webhook_log_gsi1sk(since, "")
        start = self._log_start(account_id, endpoint_id, cursor) if cursor else None
        items, last = self.table.query(
            keys.webhook_log_gsi1pk(account_id, endpoint_id),
            index=GSI1,
            sk_between=(low, "~"),
            limit=limit,
            start_key=start,
            filter_expression="#status <> :delivered AND last_success = :no",
            names={"#status": "status"},
            values={":delivered": "delivered", ":no": False},
        )
        return [_delivery(i) for i in items], (str(last["GSI1SK"]) if last else None)

    @staticmethod
    def _log_start(account_id: int, endpoint_id: int, cursor: str) -> Item:
        """The GSI1 start key of a log cursor (its GSI1SK; the event id is after the time)."""
        if not _LOG_CURSOR.match(cursor):
            raise Invalid("cursor is not a position in the delivery log", field="cursor")
        event_id = cursor.split("#", 1)[1]
        return {
            "PK": account_pk(account_id),
            "SK": keys.webhook_claim_sk(event_id, endpoint_id),
            "GSI1PK": keys.webhook_log_gsi1pk(account_id, endpoint_id),
            "GSI1SK": cursor,
        }

    # --- history ---

    def record(self, account_id: int, attempt: DeliveryAttempt) -> None:
        item = {
            "PK": account_pk(account_id),
            "SK": attempt_sk(attempt),
            "entity": "webhook_attempt",
            "expires_at": _ttl(attempt.attempted_at),
            **attempt.model_dump(mode="json", exclude_none=True),
        }
        self.table.put(item)

    def history(self, account_id: int, limit: int = 50) -> list[DeliveryAttempt]:
        """Newest first: one Query on the attempt prefix, read backwards."""
        limit = max(1, min(limit, MAX_HISTORY))
        items, _ = self.table.query(
            account_pk(account_id), sk_prefix=keys.WEBHOOK_ATTEMPT_PREFIX, forward=False, limit=limit
        )
        return [from_item(DeliveryAttempt, item) for item in items]


_LOG_CURSOR = re.compile(r"^[0-9]{8}T[0-9]{6}\.[0-9]{6}Z#[A-Za-z0-9._:-]{1,100}$")


def _outcome_update(outcome: AttemptOutcome | None) -> tuple[str, dict[str, str], dict[str, object]]:
    """The SET clauses that keep an attempt's outcome on its delivery (its slot in the log)."""
    if outcome is None:
        return "", {}, {}
    return (
        ", #log.#slot = :entry, last_success = :success, last_status_code = :code, last_error = :error",
        {"#log": "attempt_log", "#slot": str(outcome.attempt % LOG_SLOTS)},
        {
            ":entry": _log_entry(outcome),
            ":success": outcome.success,
            ":code": outcome.status_code,
            ":error": outcome.error,
        },
    )


def _delivery(item: Item) -> Delivery:
    event_id = str(item["SK"]).removeprefix(keys.WEBHOOK_CLAIM_PREFIX).rsplit("#", 1)[0]
    return Delivery.model_validate(
        {**{k: v for k, v in item.items() if k in Delivery.model_fields}, "event_id": event_id}
    )
