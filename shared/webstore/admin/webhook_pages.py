"""The webhook pages (`/webhooks`, `/webhooks/{id}`, `/webhooks/deliveries/{id}`): the
endpoints, one endpoint's delivery log, one delivery's attempts, and their forms (add, validate,
disable, rotate the signing secret, shown once; redeliver one or every failed one since a time).
Every value escaped (URLs and the receivers' answers are someone else's text).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from urllib.parse import quote, urlencode

from webstore.admin import webhooks as webhook_cases
from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.server_pages import secret_page
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid
from webstore.html import Markup, fragment
from webstore.repo.webhooks import Delivery
from webstore.services import Services


def _forms(session: StaffSession) -> Markup | None:
    """The CSRF field for a role that may change webhooks; None leaves the forms out."""
    return csrf_field(session) if session.may(Capability.WEBHOOKS_WRITE) else None


# --- webhooks ---------------------------------------------------------------------------------


def _state(view: webhook_cases.EndpointView) -> str:
    if view.disabled:
        return "disabled"
    return "validated" if view.validated else "not validated"


def webhooks_page(
    services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED
) -> PanelPage:
    body = fragment(
        "panel/webhooks/list.html",
        endpoints=webhook_cases.endpoints(services, session.account_id),
        state=_state,
        csrf=_forms(session),
        typed=typed,
    )
    return PanelPage("Webhooks", body, "webhooks")


def add_endpoint(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    issued = webhook_cases.add_endpoint(
        services,
        session.account_id,
        form.get("url", ""),
        form.get("events", "").replace(",", " ").split(),
        actor=actor(session),
        now=services.now(),
        format=form.get("format", "tebex"),
    )
    return secret_page(
        "Signing secret",
        f"Endpoint {issued.endpoint_id} added: its signing secret",
        issued.secret,
        href=f"/webhooks/{issued.endpoint_id}",
        section="webhooks",
    )


@dataclass(frozen=True)
class LogRow:
    """One delivery as the endpoint's log shows it."""

    ref: str  # the delivery's reference, quoted for a path
    event_id: str
    event_type: str
    first: str
    attempts: int
    state: str
    answer: str


@dataclass(frozen=True)
class AttemptRow:
    """One attempt of a delivery as its page shows it."""

    n: int
    when: str
    status: str
    latency_ms: int
    excerpt: str


def _delivery_state(delivery: Delivery) -> str:
    if delivery.delivered:
        return "delivered"
    return "failed" if delivery.failed else "in flight"


def _answer(delivery: Delivery) -> str:
    if delivery.last_status_code is not None:
        return f"HTTP {delivery.last_status_code}"
    return delivery.last_error or ""


def _when(moment: datetime | None) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S") if moment else ""


def endpoint_page(
    services: Services, session: StaffSession, endpoint_id: int, cursor: str | None, done: str = ""
) -> PanelPage:
    """Round trips: the endpoint and a page of its log, read at once (and the session)."""
    log = webhook_cases.endpoint_log(services, session.account_id, endpoint_id, cursor or None)
    view = log.endpoint
    rows = [
        LogRow(
            ref=quote(webhook_cases.delivery_id(d)),
            event_id=d.event_id,
            event_type=d.event_type,
            first=_when(d.first_attempt_at),
            attempts=d.attempts,
            state=_delivery_state(d),
            answer=_answer(d),
        )
        for d in log.page.deliveries
    ]
    more = (
        f"/webhooks/{endpoint_id}?{urlencode({'cursor': log.page.next_cursor})}"
        if log.page.next_cursor
        else None
    )
    body = fragment(
        "panel/webhooks/endpoint.html",
        endpoint=view,
        state=_state(view),
        deliveries=rows,
        more=more,
        csrf=_forms(session),
    )
    return PanelPage(f"Endpoint {endpoint_id}", body, "webhooks")


def validate_endpoint(services: Services, session: StaffSession, endpoint_id: int) -> PanelPage | str:
    ok = webhook_cases.validate_endpoint(services, session.account_id, endpoint_id)
    message = (
        "Endpoint validated" if ok else "The endpoint did not echo the validation id; see its deliveries"
    )
    return done_at(f"/webhooks/{endpoint_id}", message)


def set_disabled(
    services: Services, session: StaffSession, endpoint_id: int, form: dict[str, str]
) -> PanelPage | str:
    disabled = form.get("disabled", "") == "true"
    webhook_cases.set_disabled(
        services, session.account_id, endpoint_id, disabled, actor=actor(session), now=services.now()
    )
    return done_at(f"/webhooks/{endpoint_id}", "Endpoint disabled" if disabled else "Endpoint enabled")


def rotate_endpoint_secret(services: Services, session: StaffSession, endpoint_id: int) -> PanelPage | str:
    issued = webhook_cases.rotate_secret(
        services, session.account_id, endpoint_id, actor=actor(session), now=services.now()
    )
    return secret_page(
        "Signing secret",
        f"Endpoint {endpoint_id}: its new signing secret",
        issued.secret,
        href=f"/webhooks/{endpoint_id}",
        section="webhooks",
    )


def redeliver_failed(
    services: Services, session: StaffSession, endpoint_id: int, form: dict[str, str]
) -> PanelPage | str:
    try:
        since = datetime.fromisoformat(form.get("since", "").strip()).replace(tzinfo=UTC)
    except ValueError:
        raise Invalid("since must be a date and time", field="since") from None
    count = webhook_cases.redeliver_failed_since(
        services, session.account_id, endpoint_id, since, actor=actor(session), now=services.now()
    )
    return done_at(f"/webhooks/{endpoint_id}", f"{count} failed deliveries sent again")


def delivery_page(services: Services, session: StaffSession, delivery_ref: str) -> PanelPage:
    """Round trips: the delivery (and the session)."""
    delivery = webhook_cases.delivery(services, session.account_id, delivery_ref)
    attempts = [
        AttemptRow(
            n=o.attempt,
            when=_when(o.at),
            status=f"HTTP {o.status_code}" if o.status_code is not None else (o.error or ""),
            latency_ms=o.latency_ms,
            excerpt=o.excerpt,
        )
        for o in delivery.outcomes()
    ]
    body = fragment(
        "panel/webhooks/delivery.html",
        delivery=delivery,
        state=_delivery_state(delivery),
        attempts=attempts,
        ref=quote(delivery_ref),
        csrf=None if delivery.delivered else _forms(session),
    )
    return PanelPage("Delivery", body, "webhooks")


def redeliver(services: Services, session: StaffSession, delivery_ref: str) -> PanelPage | str:
    sent = webhook_cases.redeliver(
        services, session.account_id, delivery_ref, actor=actor(session), now=services.now()
    )
    return done_at(
        f"/webhooks/deliveries/{quote(delivery_ref)}",
        "Sent again" if sent else "Already delivered: nothing sent",
    )
