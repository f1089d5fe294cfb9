"""Delivering one domain event to an account's webhook endpoints: the use case behind the
dispatch Lambda and the local stack's bus.

For each endpoint of the event's account that subscribes to its type:
1. the URL policy (checked on every delivery: DNS answers change);
2. validation, if the endpoint is not validated yet: the `validation.webhook` handshake, and on
   a correct echo the endpoint is marked validated (conditional update). An endpoint that fails
   it receives nothing yet, and the event is retried like a failed delivery (a receiver that is
   down or restarting when an event arrives must not lose it); the attempt is in the history;
3. the idempotency claim on (event id, endpoint id): skip if already delivered;
4. the signed POST; every attempt is recorded; a 2xx marks the claim delivered.

`DispatchResult.retry_needed` says whether some endpoint must be tried again (non-2xx, timeout,
a failed validation, or another worker mid-delivery); the caller turns that into an SQS retry
or a local re-run.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum

from aws_lambda_powertools import Logger

from webstore.catalog import WebhookEndpoint
from webstore.discord.embeds import message as discord_message
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.repo.webhooks import (
    AttemptOutcome,
    ClaimState,
    DeliveryAttempt,
    Failure,
    WebhookRepository,
    excerpt,
)
from webstore.services import Services
from webstore.subscriptions.manage_links import with_manage_url
from webstore.webhooks.envelope import (
    SIGNATURE_HEADER,
    echo_matches,
    encode_body,
    envelope,
    signature,
    subscribes,
    validation_envelope,
)
from webstore.webhooks.http import HttpResult, HttpSender, Sender
from webstore.webhooks.policy import Resolver, Target, UrlRefused, check_url, system_resolver

logger = Logger(child=True)

# Longer than one POST can take (connect + read timeouts), so a live lease is never stolen.
LEASE = timedelta(seconds=30)


class Outcome(StrEnum):
    DELIVERED = "delivered"
    ALREADY_DELIVERED = "already_delivered"
    FAILED = "failed"  # non-2xx or no answer: retry
    BUSY = "busy"  # another worker is delivering it right now: retry
    NOT_VALIDATED = "not_validated"  # the endpoint failed the handshake: nothing sent, retry
    REFUSED = "refused"  # the URL policy refused the endpoint: nothing sent


RETRY_OUTCOMES = frozenset({Outcome.FAILED, Outcome.BUSY, Outcome.NOT_VALIDATED})


@dataclass(frozen=True)
class EndpointOutcome:
    endpoint_id: int
    outcome: Outcome
    detail: str | None = None


@dataclass
class DispatchResult:
    event_id: str
    outcomes: list[EndpointOutcome] = field(default_factory=list)

    @property
    def retry_needed(self) -> bool:
        return any(o.outcome in RETRY_OUTCOMES for o in self.outcomes)

    def count(self, outcome: Outcome) -> int:
        return sum(1 for o in self.outcomes if o.outcome is outcome)


class DeliveryFailed(Exception):
    """Raised by consumers so the message is retried; names the endpoints still owed the event."""

    def __init__(self, result: DispatchResult) -> None:
        owed = [o.endpoint_id for o in result.outcomes if o.outcome in RETRY_OUTCOMES]
        super().__init__(f"event {result.event_id}: endpoints {owed} not delivered yet")
        self.result = result


class WebhookDispatcher:
    def __init__(
        self, services: Services, *, sender: Sender | None = None, resolver: Resolver = system_resolver
    ) -> None:
        self.services = services
        self.store = WebhookRepository(services.table, services.secrets)
        self.sender: Sender = sender or HttpSender()
        self.resolver = resolver

    # --- the use case ---

    def dispatch(self, event: DomainEvent) -> DispatchResult:
        result = DispatchResult(event.id)
        event = with_manage_url(event, self.services.settings.storefront_url, self.services.secrets)
        for endpoint in self.store.endpoints(event.account_id):
            if endpoint.disabled or (event.endpoints is not None and endpoint.id not in event.endpoints):
                continue
            if subscribes(endpoint.events, event.type):
                result.outcomes.append(self._deliver(event, endpoint))
        logger.info(
            "webhook event dispatched",
            extra={
                "event_id": event.id,
                "event_type": event.type,
                "outcomes": {str(o.endpoint_id): o.outcome.value for o in result.outcomes},
            },
        )
        return result

    def validate(self, account_id: int, endpoint: WebhookEndpoint) -> bool:
        """The handshake; True when the endpoint is (now) validated. Also for the catalog import."""
        if endpoint.validated or is_discord(endpoint):  # Discord echoes nothing: no handshake
            return True
        try:
            target = self._target(endpoint)
        except UrlRefused as refusal:
            self._record_refusal(account_id, endpoint, "", EventType.VALIDATION, refusal)
            return False
        return self._validate(account_id, endpoint, target)

    # --- steps ---

    def _target(self, endpoint: WebhookEndpoint) -> Target:
        return check_url(
            str(endpoint.url),
            allow_private=self.services.settings.allow_private_webhooks,
            resolver=self.resolver,
        )

    def _deliver(self, event: DomainEvent, endpoint: WebhookEndpoint) -> EndpointOutcome:
        account_id = event.account_id
        try:
            target = self._target(endpoint)
        except UrlRefused as refusal:
            self._record_refusal(account_id, endpoint, event.id, event.type, refusal)
            return EndpointOutcome(endpoint.id, Outcome.REFUSED, str(refusal))
        if (
            not endpoint.validated
            and not is_discord(endpoint)
            and not self._validate(account_id, endpoint, target)
        ):
            return EndpointOutcome(endpoint.id, Outcome.NOT_VALIDATED)
        claim = self.store.claim(
            account_id,
            event.id,
            event.type,
            endpoint.id,
            LEASE,
            self.services.now(),
            event_date=event.date,
            subject=event.subject,
        )
        if claim.state is ClaimState.DELIVERED:
            return EndpointOutcome(endpoint.id, Outcome.ALREADY_DELIVERED)
        if claim.state is ClaimState.BUSY:
            return EndpointOutcome(endpoint.id, Outcome.BUSY)
        attempted_at = self.services.now()
        body = discord_message(event) if is_discord(endpoint) else envelope(event)
        response = self._post(endpoint, target, encode_body(body))
        self._record(account_id, endpoint, event.id, event.type, claim.attempt, response)
        outcome = AttemptOutcome(
            attempt=claim.attempt,
            at=attempted_at,
            success=response.ok,
            status_code=response.status,
            error=response.error,
            latency_ms=response.latency_ms,
            excerpt=excerpt(response.body),
        )
        if response.ok:
            self.store.mark_delivered(account_id, event.id, endpoint.id, self.services.now(), outcome)
            return EndpointOutcome(endpoint.id, Outcome.DELIVERED)
        failure = Failure(self.services.now(), str(endpoint.url), _failure(response))
        self.store.release(account_id, event.id, endpoint.id, claim.token, failure, outcome)
        return EndpointOutcome(endpoint.id, Outcome.FAILED, _failure(response))

    def _validate(self, account_id: int, endpoint: WebhookEndpoint, target: Target) -> bool:
        handshake = validation_envelope(self.services.now())
        response = self._post(endpoint, target, encode_body(handshake))
        echoed = response.ok and response.status == 200 and echo_matches(response.body, handshake["id"])
        if response.ok and not echoed:
            response = HttpResult(response.status, b"", response.latency_ms, "validation id not echoed")
        self._record(account_id, endpoint, handshake["id"], EventType.VALIDATION, 1, response, success=echoed)
        if not echoed:
            logger.warning(
                "webhook endpoint failed validation",
                extra={"endpoint_id": endpoint.id, "status": response.status, "error": response.error},
            )
            return False
        if not self.store.mark_validated(account_id, endpoint):
            return False
        endpoint.validated = True
        return True

    def _post(self, endpoint: WebhookEndpoint, target: Target, body: bytes) -> HttpResult:
        headers = {SIGNATURE_HEADER: signature(endpoint.secret, body)}
        return self.sender.post(target, body, headers)

    def _record(
        self,
        account_id: int,
        endpoint: WebhookEndpoint,
        event_id: str,
        event_type: str,
        attempt: int,
        response: HttpResult,
        *,
        success: bool | None = None,
    ) -> None:
        self.store.record(
            account_id,
            DeliveryAttempt(
                event_id=event_id,
                event_type=event_type,
                endpoint_id=endpoint.id,
                url=str(endpoint.url),
                attempt=attempt,
                attempted_at=self.services.now(),
                success=response.ok if success is None else success,
                status_code=response.status,
                error=response.error,
                latency_ms=response.latency_ms,
                response_excerpt=excerpt(response.body) or None,
            ),
        )

    def _record_refusal(
        self, account_id: int, endpoint: WebhookEndpoint, event_id: str, event_type: str, refusal: UrlRefused
    ) -> None:
        logger.warning("webhook endpoint refused", extra={"endpoint_id": endpoint.id, "reason": str(refusal)})
        self._record(
            account_id, endpoint, event_id, event_type, 0, HttpResult(None, b"", 0, f"refused: {refusal}")
        )


def is_discord(endpoint: WebhookEndpoint) -> bool:
    """A Discord channel webhook: Discord embeds instead of the envelope (webstore.discord.embeds)."""
    return endpoint.format == "discord"


def _failure(response: HttpResult) -> str:
    return response.error or f"HTTP {response.status}"
