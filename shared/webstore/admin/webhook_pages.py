"""The webhook pages (`/webhooks`, `/webhooks/{id}`, `/webhooks/deliveries/{id}`): the
endpoints, one endpoint's delivery log, one delivery's attempts, and their forms (add, validate,
disable, rotate the signing secret, shown once; redeliver one or every failed one since a time).
Every value escaped (URLs and the receivers' answers are someone else's text).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from string import Template
from urllib.parse import quote, urlencode

from webstore.admin import webhooks as webhook_cases
from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.server_pages import _EMPTY, _MORE, _SECRET
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid
from webstore.repo.webhooks import Delivery
from webstore.services import Services
from webstore.storefront.pages import Safe, fill

NOTHING = Safe("")


def _page(title: str, body: Safe, section: str) -> PanelPage:
    return PanelPage(title, body, section)


# --- webhooks ---------------------------------------------------------------------------------

_WEBHOOKS = Template("""<h1>Webhooks</h1>
<div class="scroll"><table>
<thead><tr><th>Id</th><th>URL</th><th>Events</th><th>State</th><th></th></tr></thead>
<tbody>
$rows</tbody></table></div>
$form""")
_ENDPOINT_ROW = Template(
    "<tr><td>$id</td><td>$url</td><td>$events</td><td>$state</td>"
    '<td><a href="/webhooks/$id">Deliveries</a></td></tr>\n'
)
_ADD_ENDPOINT = Template("""<h2>Add an endpoint</h2>
<form method="post" action="/webhooks">$csrf
<label>URL <input name="url" type="url" required maxlength="2000" value="$url"></label>
<label>Events (blank: all)
<input name="events" maxlength="2000" value="$events"
 placeholder="payment.completed payment.refunded"></label>
<button type="submit">Add endpoint</button></form>
""")


def _state(view: webhook_cases.EndpointView) -> str:
    if view.disabled:
        return "disabled"
    return "validated" if view.validated else "not validated"


def webhooks_page(
    services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED
) -> PanelPage:
    rows = Safe(
        "".join(
            fill(_ENDPOINT_ROW, id=str(e.id), url=e.url, events=", ".join(e.events) or "all", state=_state(e))
            for e in webhook_cases.endpoints(services, session.account_id)
        )
    )
    form = (
        fill(
            _ADD_ENDPOINT, csrf=csrf_field(session), url=typed.get("url", ""), events=typed.get("events", "")
        )
        if session.may(Capability.WEBHOOKS_WRITE)
        else NOTHING
    )
    return _page("Webhooks", fill(_WEBHOOKS, rows=rows, form=form), "webhooks")


def add_endpoint(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    issued = webhook_cases.add_endpoint(
        services,
        session.account_id,
        form.get("url", ""),
        form.get("events", "").replace(",", " ").split(),
        actor=actor(session),
        now=services.now(),
    )
    body = fill(
        _SECRET,
        title=f"Endpoint {issued.endpoint_id} added: its signing secret",
        secret=issued.secret,
        href=f"/webhooks/{issued.endpoint_id}",
    )
    return _page("Signing secret", body, "webhooks")


_ENDPOINT = Template("""<h1>Endpoint $id</h1>
<p>$url</p>
<p class="help">Events: $events · $state</p>
$forms
<h2>Deliveries</h2>
$log""")
_ENDPOINT_FORMS = Template("""<form method="post" action="/webhooks/$id/validate">$csrf
<button type="submit">Validate now</button></form>
<form method="post" action="/webhooks/$id/disabled">$csrf
<input type="hidden" name="disabled" value="$toggle">
<button type="submit">$toggle_label</button></form>
<form method="post" action="/webhooks/$id/secret">$csrf
<button type="submit" class="danger">Rotate signing secret</button></form>
<form method="post" action="/webhooks/$id/redeliver">$csrf
<label>Redeliver every failed delivery since (UTC) <input name="since" type="datetime-local" required></label>
<button type="submit">Redeliver failed</button></form>
""")
_LOG = Template("""<div class="scroll"><table>
<thead><tr><th>Event</th><th>Type</th><th>First attempt</th><th>Attempts</th><th>State</th>
<th>Last answer</th></tr></thead>
<tbody>
$rows</tbody></table></div>
$more""")
_LOG_ROW = Template(
    '<tr><td><a href="/webhooks/deliveries/$ref">$event</a></td><td>$type</td><td>$first</td>'
    "<td>$attempts</td><td>$state</td><td>$answer</td></tr>\n"
)


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
    rows = Safe(
        "".join(
            fill(
                _LOG_ROW,
                ref=quote(webhook_cases.delivery_id(d)),
                event=d.event_id,
                type=d.event_type,
                first=_when(d.first_attempt_at),
                attempts=str(d.attempts),
                state=_delivery_state(d),
                answer=_answer(d),
            )
            for d in log.page.deliveries
        )
    )
    more = (
        f"/webhooks/{endpoint_id}?{urlencode({'cursor': log.page.next_cursor})}"
        if log.page.next_cursor
        else None
    )
    table = (
        fill(_LOG, rows=rows, more=fill(_MORE, href=more) if more else NOTHING)
        if log.page.deliveries
        else fill(_EMPTY, message="No deliveries in the last 30 days.")
    )
    forms = NOTHING
    if session.may(Capability.WEBHOOKS_WRITE):
        forms = fill(
            _ENDPOINT_FORMS,
            id=str(endpoint_id),
            csrf=csrf_field(session),
            toggle="false" if view.disabled else "true",
            toggle_label="Enable" if view.disabled else "Disable",
        )
    body = fill(
        _ENDPOINT,
        id=str(view.id),
        url=view.url,
        events=", ".join(view.events) or "all",
        state=_state(view),
        forms=forms,
        log=table,
    )
    return _page(f"Endpoint {endpoint_id}", body, "webhooks")


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
    body = fill(
        _SECRET,
        title=f"Endpoint {endpoint_id}: its new signing secret",
        secret=issued.secret,
        href=f"/webhooks/{endpoint_id}",
    )
    return _page("Signing secret", body, "webhooks")


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


_DELIVERY = Template("""<h1>Delivery of $event</h1>
<p class="help">$type to <a href="/webhooks/$endpoint">endpoint $endpoint</a> · $state ·
$attempts attempt(s)</p>
$form
<h2>Attempts</h2>
<div class="scroll"><table>
<thead><tr><th>#</th><th>When</th><th>Status</th><th>Latency</th><th>Response</th></tr></thead>
<tbody>
$rows</tbody></table></div>
""")
_ATTEMPT_ROW = Template(
    "<tr><td>$n</td><td>$when</td><td>$status</td><td>$latency ms</td><td><pre>$excerpt</pre></td></tr>\n"
)
_REDELIVER = Template("""<form method="post" action="/webhooks/deliveries/$ref/redeliver">$csrf
<button type="submit">Redeliver</button></form>""")


def delivery_page(services: Services, session: StaffSession, delivery_ref: str) -> PanelPage:
    """Round trips: the delivery (and the session)."""
    delivery = webhook_cases.delivery(services, session.account_id, delivery_ref)
    rows = Safe(
        "".join(
            fill(
                _ATTEMPT_ROW,
                n=str(o.attempt),
                when=_when(o.at),
                status=f"HTTP {o.status_code}" if o.status_code is not None else (o.error or ""),
                latency=str(o.latency_ms),
                excerpt=o.excerpt,
            )
            for o in delivery.outcomes()
        )
    )
    form = NOTHING
    if session.may(Capability.WEBHOOKS_WRITE) and not delivery.delivered:
        form = fill(_REDELIVER, ref=quote(delivery_ref), csrf=csrf_field(session))
    body = fill(
        _DELIVERY,
        event=delivery.event_id,
        type=delivery.event_type,
        endpoint=str(delivery.endpoint_id),
        state=_delivery_state(delivery),
        attempts=str(delivery.attempts),
        form=form,
        rows=rows,
    )
    return _page("Delivery", body, "webhooks")


def redeliver(services: Services, session: StaffSession, delivery_ref: str) -> PanelPage | str:
    sent = webhook_cases.redeliver(
        services, session.account_id, delivery_ref, actor=actor(session), now=services.now()
    )
    return done_at(
        f"/webhooks/deliveries/{quote(delivery_ref)}",
        "Sent again" if sent else "Already delivered: nothing sent",
    )
