"""The hosted auth page: the username form, and its two use cases (show it, submit it).

Rendered by the hosted pages' one renderer (`storefront.pages`). Forms may post only to the
page itself and redirect only to the checked return URL's origin. A failed submission shows the
form again with the reason; any other refusal is the common problem page (functions/pages.py).
"""

from __future__ import annotations

from string import Template

from webstore.errors import DomainError, Invalid
from webstore.services import Services
from webstore.storefront.basket_auth import AuthPrompt, authenticate, open_auth_page
from webstore.storefront.pages import PageResult, Safe, content_security_policy, fill, page

TITLE = "Cannot log in to this basket"  # of the page that says why there is no form

_FORM = Template("""<h1>$title</h1>
<p>Enter your username to continue to <strong>$store</strong>.</p>
<form method="post">
<input type="hidden" name="returnUrl" value="$return_url">
<label for="username">Username</label>
<input id="username" name="username" type="text" value="$username" required maxlength="16"
 autocomplete="username" autocapitalize="none" spellcheck="false" autofocus
 aria-describedby="username-help$error_ref"$invalid>
<p id="username-help" class="help">Your in-game name: 3 to 16 letters, digits or underscores.</p>
$error
<button type="submit">Continue</button>
</form>
""")

_ERROR = Template('<p id="username-error" class="error" role="alert">$message</p>')


def form_page(prompt: AuthPrompt, *, username: str = "", error: str | None = None) -> str:
    """The username form; with `error`, shown again after a refused submission."""
    title = f"Log in to {prompt.store.name}"
    content = fill(
        _FORM,
        title=title,
        store=prompt.store.name,
        return_url=prompt.return_url,
        username=username[:64],
        error_ref=" username-error" if error else "",
        invalid=Safe(' aria-invalid="true"') if error else Safe(""),
        error=fill(_ERROR, message=error) if error else Safe(""),
    )
    return page(title, content, prompt.store.lang)


def show(services: Services, basket_ident: str, return_url: str | None) -> PageResult:
    """GET: the form, for an open basket and a return URL the store allows."""
    prompt = open_auth_page(services, basket_ident, return_url)
    return PageResult(html=form_page(prompt), csp=content_security_policy(prompt.return_url))


def submit(services: Services, basket_ident: str, return_url: str | None, username: str) -> PageResult:
    """POST: bind the basket to the player, then back to the return URL; a refused username
    shows the form again."""
    prompt = open_auth_page(services, basket_ident, return_url, username.strip())
    csp = content_security_policy(prompt.return_url)
    try:
        target = authenticate(services, prompt, username)
    except DomainError as error:
        # A refused name (unknown, taken basket) or the name service down: the form again,
        # saying why, with the status (503 tells the player's browser nothing was done).
        if isinstance(error, Invalid) or error.field == "username":
            form = form_page(prompt, username=username, error=error.detail)
            return PageResult(error.status, form, csp=csp)
        raise
    return PageResult(redirect=target, csp=csp)
