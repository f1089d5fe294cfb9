"""The panel's one page shape and one form flow (HTTP-free; functions.admin_deps serves them).

A page's content is a `PanelPage`: its title, its body, the section of the navigation it
belongs to, its status, and the store's name when the page read it (the shell's heading). The
shell (`webstore.admin.layout.panel_page`) wraps it; the route's handler turns it into a
response.

A form is `submit(action, again)`: `action` validates what was typed and calls the form's one use
case, answering where to go next (Post/Redirect/Get: a 303 to the page that shows the result,
with a fixed `?done=` message). A refusal the member can correct in the same form (a mistake,
422; changed by someone else meanwhile, 409; any other 4xx but those below) renders the same
form again through `again(error)`, at the error's status, with what was typed and the message.
Not found (404), not allowed (403), no session (401→sign-in) and too many tries (429) are the
request's own answer: the panel's error page.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Protocol
from urllib.parse import urlencode

from webstore.errors import DomainError
from webstore.html import Markup, fragment

# Statuses that are the request's answer rather than a form to correct.
NOT_A_FORM_REFUSAL = frozenset({401, 403, 404, 429})


@dataclass(frozen=True)
class PanelPage:
    """The content of one panel page: headed by its title, in its section of the navigation."""

    title: str
    body: Markup  # rendered from a template of templates/panel/ (webstore.html.fragment)
    section: str
    status: int = 200
    store: str = ""  # the store's name heading the shell, when the page read it; else "Control panel"


def correctable(error: DomainError) -> bool:
    """Whether the member can correct `error` in the form they sent."""
    return 400 <= error.status < 500 and error.status not in NOT_A_FORM_REFUSAL


def submit(
    action: Callable[[], str | PanelPage], again: Callable[[DomainError], PanelPage]
) -> str | PanelPage:
    """Run a form's `action` (validate, one use case, where to go next: a path, or the page
    showing a secret issued once); on a correctable refusal, the same form again at the
    refusal's status. Nothing is written either way but by the use case, all or nothing."""
    try:
        return action()
    except DomainError as error:
        if not correctable(error):
            raise
        return replace(again(error), status=error.status)


NONE_TYPED: Mapping[str, str] = MappingProxyType({})


def done_at(path: str, message: str) -> str:
    """Where a form goes when done: `path` saying `message` (`?done=`)."""
    return f"{path}?{urlencode({'done': message})}"


def with_error(page: PanelPage, error: DomainError) -> PanelPage:
    """`page` with why its form was refused above it (the flow sets the status)."""
    return replace(page, body=fragment("panel/with_error.html", detail=error.detail, body=page.body))


class Named(Protocol):
    @property
    def email(self) -> str: ...


def actor(session: Named) -> str:
    """Who the audit log names for a panel change."""
    return f"staff:{session.email}"
