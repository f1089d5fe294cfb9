"""The servers pages (`/servers`, `/servers/{id}`): the list, one server and the commands
waiting for it, and their forms (add, rename, rotate the secret, delete waiting commands).
Every value escaped (names and commands are someone else's text). Forms go through the panel's
form flow (webstore.admin.flow): a 303 to the page that shows the result (`?done=`), except where
a secret is issued (add a server, rotate its secret): that answer is the page showing the secret,
once, never cached and never in a URL.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlencode

from webstore.admin import queue as queue_cases
from webstore.admin import servers as server_cases
from webstore.admin.flow import NONE_TYPED, PanelPage, actor, done_at
from webstore.admin.layout import csrf_field
from webstore.admin.roles import Capability
from webstore.admin.sessions import StaffSession
from webstore.errors import Invalid
from webstore.html import fragment
from webstore.repo import start_read
from webstore.services import Services


def secret_page(title: str, heading: str, secret: str, *, href: str, section: str) -> PanelPage:
    """The page showing a secret issued once (`href`: where to continue)."""
    return PanelPage(title, fragment("panel/secret.html", heading=heading, secret=secret, href=href), section)


def command_ids(raw: str, field: str = "command_ids") -> list[int]:
    """Ids from a form: checkboxes joined by commas, or typed, separated by commas or spaces."""
    found: list[int] = []
    for part in raw.replace(",", " ").split():
        if not part.isdigit() or len(part) > 10:
            raise Invalid(f"{field}: {part[:20]!r} is not a command id", field=field)
        found.append(int(part))
    return found


# --- servers --------------------------------------------------------------------------------


def servers_page(
    services: Services, session: StaffSession, typed: Mapping[str, str] = NONE_TYPED
) -> PanelPage:
    body = fragment(
        "panel/servers/list.html",
        servers=server_cases.servers(services, session.account_id),
        csrf=csrf_field(session) if session.may(Capability.SERVERS_WRITE) else None,
        typed=typed,
    )
    return PanelPage("Servers", body, "servers")


def create_server(services: Services, session: StaffSession, form: dict[str, str]) -> PanelPage | str:
    issued = server_cases.create_server(
        services, session.account_id, form.get("name", ""), actor=actor(session), now=services.now()
    )
    return secret_page(
        "Server secret",
        f"Server {issued.server_id} added: its secret",
        issued.secret,
        href=f"/servers/{issued.server_id}",
        section="servers",
    )


def server_page(services: Services, session: StaffSession, server_id: int, cursor: str | None) -> PanelPage:
    """Round trips: the server and a page of its queue, read at once (and the session). Support
    (the queue, not servers) opens it from the queue page."""
    shown = start_read(server_cases.server, services, session.account_id, server_id)
    page = queue_cases.server_queue(services, session.account_id, server_id, cursor or None)
    server = shown.result()
    more = f"/servers/{server_id}?{urlencode({'cursor': page.next_cursor})}" if page.next_cursor else None
    body = fragment(
        "panel/servers/server.html",
        server=server,
        page=page,
        more=more,
        write=session.may(Capability.SERVERS_WRITE),
        delete=session.may(Capability.QUEUE_WRITE),
        csrf=csrf_field(session),
    )
    section = "servers" if session.may(Capability.SERVERS_READ) else "queue"
    return PanelPage(server.name, body, section)


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
    return secret_page(
        "Server secret",
        f"Server {server_id}: its new secret",
        issued.secret,
        href=f"/servers/{server_id}",
        section="servers",
    )


def delete_commands(
    services: Services, session: StaffSession, server_id: int, form: dict[str, str]
) -> PanelPage | str:
    count = queue_cases.delete_commands(
        services,
        session.account_id,
        server_id,
        command_ids(form.get("command_ids", "")),
        actor=actor(session),
        now=services.now(),
    )
    return done_at(f"/servers/{server_id}", f"{count} command(s) deleted")
