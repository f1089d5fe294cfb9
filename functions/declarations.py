"""What each function is and may touch: the lines of the route table (an event consumer's line,
`Consumer`, is in functions.events.declarations, beside the consumers).

Free of FastAPI on purpose: event consumers import what they may touch from here, and a function
that is not HTTP should not pay FastAPI's import on a cold start. The CDK stack grants each
function exactly its access; the test harness fails a test whose handler goes beyond it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a route's own module imports the capability it names; players' pages need none
    from webstore.admin.roles import Capability


class Interface(StrEnum):
    STOREFRONT = "storefront"
    OPERATOR = "operator"
    ADMIN = "admin"
    SHOP = "shop"


class Access(StrEnum):
    """What a function may touch; its IAM policy grants exactly these."""

    TABLE_READ = "table:read"
    TABLE_WRITE = "table:write"
    BUS_PUT = "bus:put"
    # The key that opens webhook signing secrets (webstore.secret_box): the dispatch function.
    WEBHOOK_KEY = "webhook-key:read"
    # The same key, to open a store's sealed payment-gateway secrets (its Stripe secret key and
    # webhook signing secret, webstore.gateway_settings): the functions that call Stripe; and its
    # sealed Steam Web API key (the Steam sign-in, the panel's Steam form).
    GATEWAY_KEY = "gateway-key:read"
    # The brute-force guard's failure counters (webstore.failure_guard.GUARD_KEY_PREFIXES), and
    # nothing else of the table: a wrong server secret or checkout key is counted even on a
    # read-only route.
    SECRET_GUARD = "secret-guard:write"
    # The stage key again, to sign and check the control panel's session cookies
    # (webstore.admin.sessions): every admin function.
    PANEL_KEY = "panel-key:read"
    # Send e-mail through Amazon SES (the stage's identity and configuration set only): the mail
    # consumer and the panel's "Send again" (webstore.mail).
    MAIL_SEND = "mail:send"
    # Read the stage's SES identity (`ses:GetEmailIdentity` on it only): the Go live page's
    # e-mail domain status (webstore.admin.golive_pages.mail_status).
    MAIL_CHECK = "mail:check"


READ = frozenset({Access.TABLE_READ})
WRITE = frozenset({Access.TABLE_READ, Access.TABLE_WRITE})
WRITE_AND_PUBLISH = frozenset({Access.TABLE_READ, Access.TABLE_WRITE, Access.BUS_PUT})

# What every function of an interface may touch besides its own route's declaration: every
# operator route checks the server secret, so every one counts wrong secrets; the storefront's
# routes that check Basic auth (getCategories with usernameId among them, a read) count wrong
# checkout keys, and the `$default` function serves them all.
INTERFACE_ACCESS: dict[Interface, frozenset[Access]] = {
    Interface.STOREFRONT: frozenset({Access.SECRET_GUARD}),
    Interface.OPERATOR: frozenset({Access.SECRET_GUARD}),
    # Every panel page checks the signed session cookie (the stage key); the login counts wrong
    # passwords with the same guard as the server secret.
    Interface.ADMIN: frozenset({Access.SECRET_GUARD, Access.PANEL_KEY}),
    # The players' shop checks no secret: a page reads, a form writes the basket it names.
    Interface.SHOP: frozenset(),
}


@dataclass(frozen=True)
class Route:
    """One line of the route table."""

    interface: Interface
    method: str
    path: str
    operation_id: str
    access: frozenset[Access]
    summary: str = ""
    status_code: int = 200
    # Further paths served by the same function (e.g. the token-less basket routes).
    aliases: tuple[str, ...] = ()
    memory_mb: int = 512
    timeout_seconds: int = 10
    # Hosted pages answer HTML and stay out of the JSON interface's OpenAPI document.
    html: bool = False
    # A control panel route: what the signed-in member's role must have to open it (None: any
    # member, or no session at all for the sign-in page and the static files). The one place
    # it is said: the runtime refuses others with the 403 page (functions.admin_deps), the
    # navigation hides what the role cannot open (webstore.admin.route_capabilities, generated
    # from here), and tests/integration/admin/test_capabilities.py checks every route for every role.
    capability: Capability | None = None

    @property
    def paths(self) -> tuple[str, ...]:
        return (self.path, *self.aliases)

    @property
    def function_access(self) -> frozenset[Access]:
        """What the route's function may touch: its own access plus its interface's."""
        return self.access | INTERFACE_ACCESS[self.interface]
