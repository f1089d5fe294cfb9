"""The sign-in page and its form (HTTP-free): what a handler renders and sets."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from string import Template

from webstore.admin import sessions, staff
from webstore.admin.layout import bare_page, safe_next
from webstore.errors import Unauthorized
from webstore.services import Services
from webstore.storefront.pages import PageResult, Safe, fill

TITLE = "Sign in"

_FORM = Template("""<h1>Sign in to your store</h1>
$message<form method="post" action="/login" id="login">
<input type="hidden" name="next" value="$next">
<label for="email">Email</label>
<input id="email" name="email" type="email" autocomplete="username" required value="$email" autofocus>
<label for="password">Password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required>
<label for="code">Authentication code <span class="help">(only if you set up a second factor)</span></label>
<input id="code" name="code" inputmode="numeric" autocomplete="one-time-code" maxlength="8">
<p><button type="submit">Sign in</button></p>
</form>
""")
_ERROR = Template('<p class="error" id="error" role="alert">$text</p>\n')


def form(next_path: str | None, *, email: str = "", error: str = "", status: int = 200) -> PageResult:
    body = fill(
        _FORM,
        next=safe_next(next_path),
        email=email,
        message=fill(_ERROR, text=error) if error else Safe(""),
    )
    return PageResult(status, bare_page(TITLE, body))


@dataclass(frozen=True)
class SignedIn:
    """A successful sign-in: the cookie to set and where to go."""

    cookie: sessions.SessionCookie
    location: str


def submit(
    services: Services,
    email: str,
    password: str,
    next_path: str | None,
    client: str,
    now: datetime,
    code: str = "",
) -> SignedIn | PageResult:
    """Sign in: the session cookie and the page to go to, or the form again with the one
    message every refusal has (401). Throttled (429) past the allowed failures."""
    try:
        member = staff.sign_in(services, email, password, client, now, code)
    except Unauthorized as refused:
        return form(next_path, email=email, error=refused.detail, status=401)
    return SignedIn(sessions.issue(services, member, now), safe_next(next_path))
