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
"""

from __future__ import annotations

import contextlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum

from aws_lambda_powertools import Logger
from pydantic import BaseModel, ValidationError

from webstore import keys
from webstore.catalog import WebhookEndpoint
from webstore.db import GSI1, ConditionFailed, Item, Table, from_item
from webstore.keys import account_pk, key, webhook_sk
from webstore.repo.account import AccountRepository
from webstore.secret_box import SealBroken, SecretBox

logger = Logger(child=True)

RETENTION = timedelta(days=30)
MAX_HISTORY = 200


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
        error=item.get("last_error", ""),
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
                    found.append(AccountRepository.webhook_endpoint(item, self.secrets))
                except (ValidationError, SealBroken):
                    logger.error("unreadable webhook endpoint", extra={"sk": item.get("SK")})
            if not start:
                return found

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
    ) -> Claim:
        """Take the (event, endpoint) lease unless it was delivered or someone else holds it."""
        token = secrets.token_hex(8)
        item_key = key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id))
        try:
            attributes = self.table.update(
                item_key,
                "SET #status = :pending, #lease = :lease, #claim = :token, #entity = :entity,"
                " #type = :type, #endpoint = :endpoint, #ttl = :ttl ADD #attempts :one",
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
                },
                return_values="ALL_NEW",
            )
        except ConditionFailed:
            current = self.table.get(item_key, consistent=True) or {}
            state = ClaimState.DELIVERED if current.get("status") == "delivered" else ClaimState.BUSY
            return Claim(state)
        return Claim(ClaimState.CLAIMED, int(attributes.get("attempts", 1)), token)

    def mark_delivered(self, account_id: int, event_id: str, endpoint_id: int, now: datetime) -> None:
        self.table.update(
            key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id)),
            "SET #status = :delivered, delivered_at = :at REMOVE #lease, #claim, GSI1PK, GSI1SK",
            names={"#status": "status", "#lease": "lease_until", "#claim": "claim"},
            values={":delivered": "delivered", ":at": now.isoformat()},
        )

    def release(self, account_id: int, event_id: str, endpoint_id: int, token: str, failure: Failure) -> None:
        """Give the lease back after a failed POST so the next retry may claim at once, and list
        the delivery among the account's failing ones (`failed`) until a later attempt succeeds."""
        moment = failure.at.strftime("%Y%m%dT%H%M%S.%fZ")
        with contextlib.suppress(ConditionFailed):
            self.table.update(
                key(account_pk(account_id), keys.webhook_claim_sk(event_id, endpoint_id)),
                "SET #lease = :zero, GSI1PK = :failed, GSI1SK = :order, failed_at = :at,"
                " last_error = :error, #url = :url",
                condition="#claim = :token AND #status = :pending",
                names={"#lease": "lease_until", "#claim": "claim", "#status": "status", "#url": "url"},
                values={
                    ":zero": 0,
                    ":token": token,
                    ":pending": "pending",
                    ":failed": keys.failed_deliveries_of_account(account_id),
                    ":order": f"{moment}#{event_id}#{endpoint_id:010d}",
                    ":at": failure.at.isoformat(),
                    ":error": failure.error[:200],
                    ":url": failure.url,
                },
            )

    def failed(self, account_id: int, limit: int) -> list[FailedDelivery]:
        """The deliveries whose last attempt failed, most recent failure first (one Query of at
        most `limit` items on their GSI1 partition; delivered ones have left it)."""
        items, _ = self.table.query(
            keys.failed_deliveries_of_account(account_id), index=GSI1, forward=False, limit=limit
        )
        return [_failed_delivery(item) for item in items]

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
