"""The servers pages (`/servers`, `/servers/{id}`): the list, one server and the commands
waiting for it, and their forms (add, rename, rotate the secret, delete waiting commands).
Every value escaped (names and commands are someone else's text). Forms go through the panel's
form flow (webstore.admin.flow): a 303 to the page that shows the result (`?done=`), except where
a secret is issued (add a server, rotate its secret): that answer is the page showing the secret,
once, never cached and never in a URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from string import Template
from urllib.parse import urlencode

from webstore.admin import queue as queue_cases
from webstore.admin import servers as server_cases
from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid
from webstore.repo import start_read
from webstore.repo.queue import QueuedCommand
from webstore.services import Services
from webstore.storefront.pages import Safe, fill

NOTHING = Safe("")


def _page(title: str, body: Safe, section: str) -> PanelPage:
    return PanelPage(title, body, section)


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
<label>Name <input name="name" required maxlength="200" value="$name"></label>
<button type="submit">Add server</button></form>
""")
_SECRET = Template("""<h1>$title</h1>
<p class="help">Copy it now: it is shown this once and stored only as a hash.</p>
<p><code id="secret">$secret</code></p>
<p><a href="$href">Continue</a></p>
""")


def servers_page(
    services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED
) -> PanelPage:
    rows = Safe(
        "".join(
            fill(_SERVER_ROW, id=str(s.id), name=s.name, next_check=str(s.next_check))
            for s in server_cases.servers(services, session.account_id)
        )
    )
    form = (
        fill(_CREATE_SERVER, csrf=csrf_field(session), name=typed.get("name", ""))
        if session.may(Capability.SERVERS_WRITE)
        else NOTHING
    )
    return _page("Servers", fill(_SERVERS, rows=rows, form=form), "servers")


def create_server(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    issued = server_cases.create_server(
        services, session.account_id, form.get("name", ""), actor=actor(session), now=services.now()
    )
    body = fill(
        _SECRET,
        title=f"Server {issued.server_id} added: its secret",
        secret=issued.secret,
        href=f"/servers/{issued.server_id}",
    )
    return _page("Server secret", body, "servers")


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


def server_page(services: Services, session: StaffSession, server_id: int, cursor: str | None) -> PanelPage:
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
    return _page(server.name, body, section)


def rename_server(
    services: Services, session: StaffSession, server_id: int, form: dict[str, str]
) -> PanelPage | str:
    server_cases.rename_server(
        services,
        session.account_id,
        server_id,
        form.get("name", ""),
        actor=actor(session),
        now=services.now(),
    )
    return done_at(f"/servers/{server_id}", "Server renamed")


def rotate_server_secret(services: Services, session: StaffSession, server_id: int) -> PanelPage | str:
    issued = server_cases.rotate_secret(
        services, session.account_id, server_id, actor=actor(session), now=services.now()
    )
    body = fill(
        _SECRET,
        title=f"Server {server_id}: its new secret",
        secret=issued.secret,
        href=f"/servers/{server_id}",
    )
    return _page("Server secret", body, "servers")


def delete_commands(
    services: Services, session: StaffSession, server_id: int, form: dict[str, str]
) -> PanelPage | str:
    count = queue_cases.delete_commands(
        services,
        session.account_id,
        server_id,
        _ids(form.get("command_ids", "")),
        actor=actor(session),
        now=services.now(),
    )
    return done_at(f"/servers/{server_id}", f"{count} command(s) deleted")
