"""The panel's servers, command queue and webhook pages: each a use case of webstore.admin.servers,
.queue or .webhooks rendered in the shell, every value escaped (player names, commands, URLs and
the receivers' response excerpts are someone else's text).

Forms answer 303 to the page that shows the result (`?done=`), except where a secret is issued
(create server, rotate a secret, add an endpoint): that answer is the page showing the secret,
once, never cached and never in a URL; reloading the server or endpoint page does not show it.
Roles: reads need SERVERS_READ / QUEUE_READ / WEBHOOKS_READ; forms are rendered only for a role
with the matching WRITE capability, and a POST without it is the 403 page.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from string import Template
from urllib.parse import quote, urlencode

from webstore.admin import queue as queue_cases
from webstore.admin import servers as server_cases
from webstore.admin import webhooks as webhook_cases
from webstore.admin.layout import SWAP_CONTENT, csrf_field, panel_page
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid
from webstore.repo import start_read
from webstore.repo.queue import QueuedCommand
from webstore.repo.webhooks import Delivery
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

NOTHING = Safe("")


def actor(session: StaffSession) -> str:
    """Who the audit log names for a panel change."""
    return f"staff:{session.email}"


def _page(title: str, body: Safe, session: StaffSession, section: str, done: str = "") -> PageResult:
    return PageResult(200, panel_page(title, body, session=session, section=section, done=done))


def _done(path: str, message: str) -> PageResult:
    return PageResult(redirect=f"{path}?{urlencode({'done': message})}")


def _ids(raw: str, field: str = "command_ids") -> list[int]:
    """Ids from a form: checkboxes joined by commas, or typed, separated by commas or spaces."""
    found: list[int] = []
    for part in raw.replace(",", " ").split():
        if not part.isdigit() or len(part) > 10:
            raise Invalid(f"{field}: {part[:20]!r} is not a command id", field=field)
        found.append(int(part))
    return found


# --- servers --------------------------------------------------------------------------------

_SERVERS = Template("""<h1>Servers</h1>
<p class="help">Each server polls its command queue with its own secret.</p>
<div class="scroll"><table>
<thead><tr><th>Id</th><th>Name</th><th>Polls every</th><th></th></tr></thead>
<tbody>
$rows</tbody></table></div>
$form""")
_SERVER_ROW = Template(
    '<tr><td>$id</td><td>$name</td><td>$next_check s</td><td><a href="/servers/$id">Queue</a></td></tr>\n'
)
_CREATE_SERVER = Template("""<h2>Add a server</h2>
<form method="post" action="/servers">$csrf
<label>Name <input name="name" required maxlength="200"></label>
<button type="submit">Add server</button></form>
""")
_SECRET = Template("""<h1>$title</h1>
<p class="help">Copy it now: it is shown this once and stored only as a hash.</p>
<p><code id="secret">$secret</code></p>
<p><a href="$href">Continue</a></p>
""")


def servers_page(services: Services, session: StaffSession, done: str = "") -> PageResult:
    rows = Safe(
        "".join(
            fill(_SERVER_ROW, id=str(s.id), name=s.name, next_check=str(s.next_check))
            for s in server_cases.servers(services, session.account_id)
        )
    )
    form = (
        fill(_CREATE_SERVER, csrf=csrf_field(session)) if session.may(Capability.SERVERS_WRITE) else NOTHING
    )
    return _page("Servers", fill(_SERVERS, rows=rows, form=form), session, "servers", done)


def create_server(services: Services, session: StaffSession, form: dict[str, str]) -> PageResult:
    issued = server_cases.create_server(
        services, session.account_id, form.get("name", ""), actor=actor(session), now=services.now()
    )
    body = fill(
        _SECRET,
        title=f"Server {issued.server_id} added: its secret",
        secret=issued.secret,
        href=f"/servers/{issued.server_id}",
    )
    return _page("Server secret", body, session, "servers")


_SERVER = Template("""<h1>$name</h1>
<p class="help">Server $id · polls every $next_check s</p>
$forms
<h2>Waiting commands</h2>
$commands""")
_SERVER_FORMS = Template("""<form method="post" action="/servers/$id/name">$csrf
<label>Name <input name="name" required maxlength="200" value="$name"></label>
<button type="submit">Rename</button></form>
<form method="post" action="/servers/$id/secret">$csrf
<button type="submit" class="danger">Rotate secret</button>
<span class="help">The old secret stops working.</span></form>
""")
_COMMANDS = Template("""<div class="scroll"><table>
<thead><tr>$select_head<th>Id</th><th>Server</th><th>Player</th><th>Command</th><th>Payment</th><th>When</th></tr></thead>
<tbody>
$rows</tbody></table></div>
$more""")
_COMMAND_ROW = Template(
    "<tr>$select<td>$id</td><td>$server</td><td>$player</td><td><code>$command</code></td>"
    "<td>$payment</td><td>$when</td></tr>\n"
)
_SELECT = Template('<td><input type="checkbox" name="command_ids" value="$id" aria-label="Command $id"></td>')
_DELETE_FORM = Template("""<form method="post" action="/servers/$id/commands/delete">$csrf
$table
<button type="submit" class="danger">Delete selected</button></form>""")
_MORE = Template('<p><a href="$href">Next page</a></p>')
_EMPTY = Template('<p class="help">$message</p>')


def _commands_table(commands: list[QueuedCommand], *, selectable: bool, more: str | None) -> Safe:
    if not commands:
        return fill(_EMPTY, message="Nothing is waiting.")
    rows = Safe(
        "".join(
            fill(
                _COMMAND_ROW,
                select=fill(_SELECT, id=str(c.id)) if selectable else NOTHING,
                id=str(c.id),
                server=str(c.server_id),
                player=c.username + ("" if c.require_online else " (offline)"),
                command=c.command,
                payment=str(c.payment_id or ""),
                when=c.created_at.strftime("%Y-%m-%d %H:%M"),
            )
            for c in commands
        )
    )
    return fill(
        _COMMANDS,
        select_head=Safe("<th>Select</th>") if selectable else NOTHING,
        rows=rows,
        more=fill(_MORE, href=more) if more else NOTHING,
    )


def server_page(
    services: Services, session: StaffSession, server_id: int, cursor: str | None, done: str = ""
) -> PageResult:
    """Round trips: the server and a page of its queue, read at once (and the session). Support
    (the queue, not servers) opens it from the queue page."""
    shown = start_read(server_cases.server, services, session.account_id, server_id)
    page = queue_cases.server_queue(services, session.account_id, server_id, cursor or None)
    server = shown.result()
    can_write = session.may(Capability.SERVERS_WRITE)
    can_delete = session.may(Capability.QUEUE_WRITE)
    more = f"/servers/{server_id}?{urlencode({'cursor': page.next_cursor})}" if page.next_cursor else None
    table = _commands_table(page.commands, selectable=can_delete, more=more)
    if can_delete and page.commands:
        table = fill(_DELETE_FORM, id=str(server_id), csrf=csrf_field(session), table=table)
    forms = (
        fill(_SERVER_FORMS, id=str(server_id), name=server.name, csrf=csrf_field(session))
        if can_write
        else NOTHING
    )
    section = "servers" if session.may(Capability.SERVERS_READ) else "queue"
    body = fill(
        _SERVER,
        name=server.name,
        id=str(server.id),
        next_check=str(server.next_check),
        forms=forms,
        commands=table,
    )
    return _page(server.name, body, session, section, done)


def rename_server(
    services: Services, session: StaffSession, server_id: int, form: dict[str, str]
) -> PageResult:
    server_cases.rename_server(
        services,
        session.account_id,
        server_id,
        form.get("name", ""),
        actor=actor(session),
        now=services.now(),
    )
    return _done(f"/servers/{server_id}", "Server renamed")


def rotate_server_secret(services: Services, session: StaffSession, server_id: int) -> PageResult:
    issued = server_cases.rotate_secret(
        services, session.account_id, server_id, actor=actor(session), now=services.now()
    )
    body = fill(
        _SECRET,
        title=f"Server {server_id}: its new secret",
        secret=issued.secret,
        href=f"/servers/{server_id}",
    )
    return _page("Server secret", body, session, "servers")


def delete_commands(
    services: Services, session: StaffSession, server_id: int, form: dict[str, str]
) -> PageResult:
    count = queue_cases.delete_commands(
        services,
        session.account_id,
        server_id,
        _ids(form.get("command_ids", "")),
        actor=actor(session),
        now=services.now(),
    )
    return _done(f"/servers/{server_id}", f"{count} command(s) deleted")


# --- the queue by player ----------------------------------------------------------------------

_QUEUE = Template(
    """<h1>Command queue</h1>
<form method="get" action="/queue" class="search" """
    + SWAP_CONTENT
    + """>
<label>Player (name or UUID) <input name="player" value="$player" maxlength="64"></label>
<button type="submit">Show</button></form>
$result
$servers
$resend"""
)
_SERVER_LINKS = Template("""<h2>By server</h2>
<ul>
$items</ul>""")
_SERVER_LINK = Template('<li><a href="/servers/$id">$name</a></li>\n')
_PLAYER_RESULT = Template("""<h2>Waiting for $player</h2>
$commands""")
_RESEND = Template("""<h2>Send a payment's commands again</h2>
<p class="help">Delivered commands are gone from the queue; their payment keeps them. Name the
payment and the command ids to queue them again under new ids.</p>
<form method="post" action="/queue/resend">$csrf
<input type="hidden" name="request_id" value="$request_id">
<label>Transaction <input name="transaction" required maxlength="32" placeholder="tbx-…"></label>
<label>Command ids <input name="command_ids" required maxlength="400" placeholder="12, 13"></label>
<button type="submit">Resend</button></form>
""")


def queue_page(
    services: Services, session: StaffSession, player: str, cursor: str | None, done: str = ""
) -> PageResult:
    """Round trips: the player's pointer, then their GSI1 page (and the session); without a
    player, the servers to choose from."""
    result = servers = NOTHING
    if not player.strip():
        items = "".join(
            fill(_SERVER_LINK, id=str(s.id), name=s.name)
            for s in server_cases.servers(services, session.account_id)
        )
        servers = fill(_SERVER_LINKS, items=Safe(items))
    else:
        username_id = queue_cases.find_player(services, session.account_id, player)
        page = queue_cases.player_queue(services, session.account_id, username_id, cursor or None)
        more = (
            f"/queue?{urlencode({'player': player, 'cursor': page.next_cursor})}"
            if page.next_cursor
            else None
        )
        result = fill(
            _PLAYER_RESULT,
            player=player,
            commands=_commands_table(page.commands, selectable=False, more=more),
        )
    resend = (
        fill(_RESEND, csrf=csrf_field(session), request_id=secrets.token_hex(16))
        if session.may(Capability.QUEUE_WRITE)
        else NOTHING
    )
    body = fill(_QUEUE, player=player, result=result, servers=servers, resend=resend)
    return _page("Command queue", body, session, "queue", done)


def resend_commands(services: Services, session: StaffSession, form: dict[str, str]) -> PageResult:
    queued = queue_cases.resend_commands(
        services,
        session.account_id,
        form.get("transaction", "").strip(),
        _ids(form.get("command_ids", "")),
        form.get("request_id", ""),
        actor=actor(session),
        now=services.now(),
    )
    message = (
        f"Queued again as command(s) {', '.join(str(c.id) for c in queued)}"
        if queued
        else "Already resent (this form was sent before)"
    )
    return _done("/queue", message)


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
<label>URL <input name="url" type="url" required maxlength="2000"></label>
<label>Events (blank: all)
<input name="events" maxlength="2000" placeholder="payment.completed payment.refunded"></label>
<button type="submit">Add endpoint</button></form>
""")


def _state(view: webhook_cases.EndpointView) -> str:
    if view.disabled:
        return "disabled"
    return "validated" if view.validated else "not validated"


def webhooks_page(services: Services, session: StaffSession, done: str = "") -> PageResult:
    rows = Safe(
        "".join(
            fill(_ENDPOINT_ROW, id=str(e.id), url=e.url, events=", ".join(e.events) or "all", state=_state(e))
            for e in webhook_cases.endpoints(services, session.account_id)
        )
    )
    form = (
        fill(_ADD_ENDPOINT, csrf=csrf_field(session)) if session.may(Capability.WEBHOOKS_WRITE) else NOTHING
    )
    return _page("Webhooks", fill(_WEBHOOKS, rows=rows, form=form), session, "webhooks", done)


def add_endpoint(services: Services, session: StaffSession, form: dict[str, str]) -> PageResult:
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
    return _page("Signing secret", body, session, "webhooks")


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
) -> PageResult:
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
    return _page(f"Endpoint {endpoint_id}", body, session, "webhooks", done)


def validate_endpoint(services: Services, session: StaffSession, endpoint_id: int) -> PageResult:
    ok = webhook_cases.validate_endpoint(services, session.account_id, endpoint_id)
    message = (
        "Endpoint validated" if ok else "The endpoint did not echo the validation id; see its deliveries"
    )
    return _done(f"/webhooks/{endpoint_id}", message)


def set_disabled(
    services: Services, session: StaffSession, endpoint_id: int, form: dict[str, str]
) -> PageResult:
    disabled = form.get("disabled", "") == "true"
    webhook_cases.set_disabled(
        services, session.account_id, endpoint_id, disabled, actor=actor(session), now=services.now()
    )
    return _done(f"/webhooks/{endpoint_id}", "Endpoint disabled" if disabled else "Endpoint enabled")


def rotate_endpoint_secret(services: Services, session: StaffSession, endpoint_id: int) -> PageResult:
    issued = webhook_cases.rotate_secret(
        services, session.account_id, endpoint_id, actor=actor(session), now=services.now()
    )
    body = fill(
        _SECRET,
        title=f"Endpoint {endpoint_id}: its new signing secret",
        secret=issued.secret,
        href=f"/webhooks/{endpoint_id}",
    )
    return _page("Signing secret", body, session, "webhooks")


def redeliver_failed(
    services: Services, session: StaffSession, endpoint_id: int, form: dict[str, str]
) -> PageResult:
    try:
        since = datetime.fromisoformat(form.get("since", "").strip()).replace(tzinfo=UTC)
    except ValueError:
        raise Invalid("since must be a date and time", field="since") from None
    count = webhook_cases.redeliver_failed_since(
        services, session.account_id, endpoint_id, since, actor=actor(session), now=services.now()
    )
    return _done(f"/webhooks/{endpoint_id}", f"{count} failed deliveries sent again")


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


def delivery_page(services: Services, session: StaffSession, delivery_ref: str, done: str = "") -> PageResult:
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
    return _page("Delivery", body, session, "webhooks", done)


def redeliver(services: Services, session: StaffSession, delivery_ref: str) -> PageResult:
    sent = webhook_cases.redeliver(
        services, session.account_id, delivery_ref, actor=actor(session), now=services.now()
    )
    return _done(
        f"/webhooks/deliveries/{quote(delivery_ref)}",
        "Sent again" if sent else "Already delivered: nothing sent",
    )
