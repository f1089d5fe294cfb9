"""Webhooks in the panel: endpoints (add, validate, disable, rotate the secret) and the delivery
log (every event sent to an endpoint, each attempt's status, latency and response excerpt), with
redelivery of one delivery or of every failed one since a time.

Endpoints are catalog entities like servers: an endpoint added here is written straight to its
item (its id taken from the account's `webhook` sequence, which the catalog import raises), and
`webstore export` writes it back to the file, so export → import keeps it; importing an older
file that lacks it removes it, as the catalog's rule is that the store equals the file.

A signing secret is returned once (add, rotate) and stored sealed; nothing here returns it again.
A new secret, like a new URL, must pass the validation handshake again (as a re-import with a new
secret does).

Redelivery publishes the event again (same id, same subject) on the bus, naming the endpoint:
the dispatcher's own path, so the delivery claim keeps it idempotent (an endpoint that got the
event is skipped; two redeliveries at once POST once).
"""

from __future__ import annotations

import json
import re
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime

from pydantic import HttpUrl, TypeAdapter, ValidationError

from webstore import keys
from webstore.catalog import WebhookEndpoint
from webstore.discord.embeds import check_webhook_url
from webstore.errors import Invalid, NotFound
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.repo import start_read
from webstore.repo.audit_log import Audit, AuditLog, changed
from webstore.repo.webhooks import Delivery, DeliveryPage, WebhookRepository
from webstore.services import Services
from webstore.webhooks.delivery import WebhookDispatcher

# A redeliver-all request reads at most this many deliveries of the log (the rest: run it again).
REDELIVER_WINDOW = 500
DELIVERIES_PER_PAGE = 25
MAX_URL = 2000
# Event types a receiver may ask for (the handshake is sent to every endpoint anyway).
SUBSCRIBABLE = tuple(t.value for t in EventType if t is not EventType.VALIDATION)

_DELIVERY_ID = re.compile(r"^([0-9]{1,10})-([A-Za-z0-9._:-]{1,100})$")
_URL = TypeAdapter(HttpUrl)


@dataclass(frozen=True)
class EndpointView:
    """An endpoint as the panel shows it: never its secret."""

    id: int
    url: str
    events: list[str]
    validated: bool
    disabled: bool
    format: str = "tebex"  # "discord": a Discord channel webhook (its URL's token not shown)


@dataclass(frozen=True)
class Issued:
    """What add and rotate return: the only time the signing secret is shown."""

    endpoint_id: int
    secret: str


@dataclass(frozen=True)
class EndpointLog:
    endpoint: EndpointView
    page: DeliveryPage


def delivery_id(delivery: Delivery) -> str:
    """The delivery's id in the panel's URLs: `{endpoint id}-{event id}`."""
    return f"{delivery.endpoint_id}-{delivery.event_id}"


def parse_delivery_id(value: str) -> tuple[int, str]:
    match = _DELIVERY_ID.match(value or "")
    if not match or not 1 <= int(match.group(1)) <= keys.INT32_MAX:
        raise NotFound("Delivery not found")
    return int(match.group(1)), match.group(2)


# --- reads --------------------------------------------------------------------------------


def endpoints(services: Services, account_id: int) -> list[EndpointView]:
    """The account's endpoints (one Query; secrets stay sealed)."""
    return [_view(e) for e in _repo(services).sealed_endpoints(account_id)]


def endpoint(services: Services, account_id: int, endpoint_id: int) -> EndpointView:
    return _view(_stored(services, account_id, endpoint_id))


def endpoint_log(
    services: Services, account_id: int, endpoint_id: int, cursor: str | None = None
) -> EndpointLog:
    """The endpoint and a page of its deliveries, newest first: two reads at once."""
    _check_id(endpoint_id)
    found: Future[WebhookEndpoint | None] = start_read(
        _repo(services).sealed_endpoint, account_id, endpoint_id
    )
    page = _repo(services).deliveries(account_id, endpoint_id, cursor=cursor, limit=DELIVERIES_PER_PAGE)
    stored = found.result()
    if stored is None:
        raise NotFound("Webhook endpoint not found")
    return EndpointLog(_view(stored), page)


def delivery(services: Services, account_id: int, delivery_ref: str) -> Delivery:
    """One delivery with its attempts (one GetItem)."""
    endpoint_id, event_id = parse_delivery_id(delivery_ref)
    found = _repo(services).delivery(account_id, endpoint_id, event_id)
    if found is None:
        raise NotFound("Delivery not found")
    return found


# --- endpoint writes ------------------------------------------------------------------------


def add_endpoint(
    services: Services,
    account_id: int,
    url: str,
    events: list[str],
    *,
    actor: str,
    now: datetime,
    format: str = "tebex",
) -> Issued:
    """A new endpoint under the next `webhook` id, with a new signing secret (returned once).
    `format` "discord": a Discord channel webhook URL, posted purchases as embeds
    (webstore.discord.embeds); it has no handshake and, unless told otherwise, gets purchases."""
    checked_url = check_url(url)
    checked_events = check_events(events)
    if format not in ("tebex", "discord"):
        raise Invalid("format: tebex or discord", field="format")
    discord = format == "discord"
    if discord:
        check_webhook_url(checked_url)
        checked_events = checked_events or [EventType.PAYMENT_COMPLETED.value]
    secret = keys.new_secret()
    created = _repo(services).create_endpoint(
        account_id,
        WebhookEndpoint(
            id=1,
            url=checked_url,
            events=checked_events,
            secret=secret,
            format="discord" if discord else "tebex",
            validated=discord,  # Discord echoes nothing: its first message is the check
        ),
        lambda made: Audit(actor, "webhook.create", f"webhook endpoint {made.id} {checked_url}", now),
    )
    return Issued(created.id, secret)


def validate_endpoint(
    services: Services,
    account_id: int,
    endpoint_id: int,
    *,
    dispatcher: WebhookDispatcher | None = None,
) -> bool:
    """The validation handshake now (the dispatcher's own); True when the endpoint is validated.
    The attempt is in the delivery history either way."""
    opened = _repo(services).opened(_stored(services, account_id, endpoint_id))
    return (dispatcher or WebhookDispatcher(services)).validate(account_id, opened)


def set_disabled(
    services: Services, account_id: int, endpoint_id: int, disabled: bool, *, actor: str, now: datetime
) -> None:
    """Turn an endpoint off (it receives nothing, its log and secret kept) or on again."""
    current = _stored(services, account_id, endpoint_id)
    if current.disabled == disabled:
        return
    verb = "disable" if disabled else "enable"
    summary = f"webhook endpoint {endpoint_id}: {changed('disabled', current.disabled, disabled)}"
    _repo(services).set_disabled(account_id, current, disabled, Audit(actor, f"webhook.{verb}", summary, now))


def rotate_secret(
    services: Services, account_id: int, endpoint_id: int, *, actor: str, now: datetime
) -> Issued:
    """A new signing secret (returned once); the endpoint must pass the handshake again."""
    _check_id(endpoint_id)
    secret = keys.new_secret()
    summary = f"webhook endpoint {endpoint_id}: {changed('secret', None, None, secret=True)}"
    _repo(services).rotate_secret(
        account_id, endpoint_id, secret, Audit(actor, "webhook.rotate_secret", summary, now)
    )
    return Issued(endpoint_id, secret)


# --- redelivery -----------------------------------------------------------------------------


def redeliver(services: Services, account_id: int, delivery_ref: str, *, actor: str, now: datetime) -> bool:
    """Publish the delivery's event again for its endpoint; False when it was delivered already
    (nothing published). A delivery without its subject (older than the log, or too large) is
    refused, naming it."""
    endpoint_id, _ = parse_delivery_id(delivery_ref)
    target: Future[EndpointView] = start_read(endpoint, services, account_id, endpoint_id)
    found = delivery(services, account_id, delivery_ref)
    if found.delivered:
        return False
    _refuse_disabled(target.result())
    _publish_again(services, account_id, found)
    AuditLog(services.table).record(
        account_id, actor, "webhook.redeliver", f"event {found.event_id} to endpoint {found.endpoint_id}", now
    )
    return True


def redeliver_failed_since(
    services: Services, account_id: int, endpoint_id: int, since: datetime, *, actor: str, now: datetime
) -> int:
    """Publish again every failed delivery of the endpoint first attempted since `since` (at
    most REDELIVER_WINDOW read per request); how many were published."""
    _refuse_disabled(endpoint(services, account_id, endpoint_id))  # NotFound: another store's
    repo = _repo(services)
    published, read, cursor = 0, 0, None
    while read < REDELIVER_WINDOW:
        page, cursor = repo.failed_since(
            account_id, endpoint_id, since, cursor=cursor, limit=min(100, REDELIVER_WINDOW - read)
        )
        read += 100
        for failed in page:
            if failed.event_subject is not None:
                _publish_again(services, account_id, failed)
                published += 1
        if cursor is None:
            break
    AuditLog(services.table).record(
        account_id,
        actor,
        "webhook.redeliver_failed",
        f"{published} failed deliveries since {since.isoformat()} to endpoint {endpoint_id}",
        now,
    )
    return published


def _refuse_disabled(view: EndpointView) -> None:
    if view.disabled:
        raise Invalid("The endpoint is disabled: enable it to send it events again", field="endpoint")


def _publish_again(services: Services, account_id: int, found: Delivery) -> None:
    if found.event_subject is None or found.event_type == EventType.VALIDATION:
        raise Invalid(
            "This delivery's event was not kept (too large, or sent before the delivery log), "
            "so it cannot be sent again",
            field="delivery",
        )
    services.publisher.publish(
        DomainEvent(
            type=found.event_type,
            account_id=account_id,
            subject=json.loads(found.event_subject),
            id=found.event_id,
            date=found.event_date or (found.first_attempt_at.isoformat() if found.first_attempt_at else ""),
            endpoints=(found.endpoint_id,),
        )
    )


# --- input rules (the catalog file's, for one endpoint) -------------------------------------


def check_url(url: str) -> str:
    url = (url or "").strip()
    if not url or len(url) > MAX_URL:
        raise Invalid(f"url must be an http(s) URL of at most {MAX_URL} characters", field="url")
    try:
        parsed = _URL.validate_python(url)
    except ValidationError:
        raise Invalid("url must be an http(s) URL", field="url") from None
    return str(parsed)


def check_events(events: list[str]) -> list[str]:
    """The event types asked for (empty: all of them); unknown ones are refused by name."""
    chosen = sorted({e.strip() for e in events if e.strip()})
    unknown = [e for e in chosen if e not in SUBSCRIBABLE]
    if unknown:
        raise Invalid(f"events: unknown webhook type {unknown[0]!r}", field="events")
    return chosen


# --- helpers ----------------------------------------------------------------------------------


def _repo(services: Services) -> WebhookRepository:
    return WebhookRepository(services.table, services.secrets)


def _check_id(endpoint_id: int) -> None:
    if not 1 <= endpoint_id <= keys.INT32_MAX:
        raise NotFound("Webhook endpoint not found")


def _stored(services: Services, account_id: int, endpoint_id: int) -> WebhookEndpoint:
    """The endpoint as stored (secret sealed), read consistently; NotFound for another store's."""
    _check_id(endpoint_id)
    found = _repo(services).sealed_endpoint(account_id, endpoint_id, consistent=True)
    if found is None:
        raise NotFound("Webhook endpoint not found")
    return found


def _view(stored: WebhookEndpoint) -> EndpointView:
    url = str(stored.url)
    if stored.format == "discord":  # the URL's last segment is the webhook's token: a secret
        url = url.rsplit("/", 1)[0] + "/…"
    return EndpointView(stored.id, url, list(stored.events), stored.validated, stored.disabled, stored.format)
