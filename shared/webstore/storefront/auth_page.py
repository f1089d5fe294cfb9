"""The hosted auth page's HTML: a tiny escaping renderer over string.Template. HTTP-free.

Every value is HTML-escaped unless it is a `Safe` fragment this module rendered itself. The page
loads nothing external: its one inline stylesheet is allowed by hash in the Content-Security-
Policy, everything else is denied (no scripts at all); forms may post only to the page itself and
redirect only to the checked return URL's origin.
"""

from __future__ import annotations

import base64
import hashlib
import html
from string import Template
from urllib.parse import urlsplit

from webstore.storefront.basket_auth import AuthPrompt


class Safe(str):
    """Already rendered HTML: inserted as is."""


def _render(template: Template, **values: str | Safe) -> Safe:
    return Safe(
        template.substitute(
            {k: v if isinstance(v, Safe) else html.escape(v, quote=True) for k, v in values.items()}
        )
    )


STYLE = """
body{font-family:system-ui,sans-serif;background:#f4f5f7;color:#1b1d21;margin:0}
main{max-width:26rem;margin:4rem auto;background:#fff;padding:2rem;border-radius:.5rem;
box-shadow:0 1px 4px rgba(0,0,0,.15)}
h1{font-size:1.4rem;margin-top:0}
label{display:block;font-weight:600;margin-bottom:.3rem}
input{box-sizing:border-box;width:100%;padding:.6rem;font-size:1rem;border:1px solid #767676;
border-radius:.3rem}
input:focus,button:focus{outline:3px solid #1a5fb4;outline-offset:2px}
.help{color:#4a4d55;font-size:.9rem;margin:.3rem 0 1rem}
.error{color:#a4000f;font-weight:600}
button{background:#1a5fb4;color:#fff;border:0;padding:.7rem 1.2rem;font-size:1rem;border-radius:.3rem;
cursor:pointer}
"""
STYLE_HASH = base64.b64encode(hashlib.sha256(STYLE.encode()).digest()).decode()

_PAGE = Template("""<!doctype html>
<html lang="$lang">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>$title</title>
<style>$style</style>
</head>
<body>
<main>
<h1>$title</h1>
$content
</main>
</body>
</html>
""")

_FORM = Template("""<p>Enter your username to continue to <strong>$store</strong>.</p>
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
_PROBLEM = Template('<p role="alert">$message</p>')


def _page(title: str, content: Safe, lang: str) -> str:
    return str(_render(_PAGE, lang=lang or "en", title=title, style=Safe(STYLE), content=content))


def form_page(prompt: AuthPrompt, *, username: str = "", error: str | None = None) -> str:
    """The username form; with `error`, shown again after a refused submission."""
    content = _render(
        _FORM,
        store=prompt.store.name,
        return_url=prompt.return_url,
        username=username[:64],
        error_ref=" username-error" if error else "",
        invalid=Safe(' aria-invalid="true"') if error else Safe(""),
        error=_render(_ERROR, message=error) if error else Safe(""),
    )
    return _page(f"Log in to {prompt.store.name}", content, prompt.store.lang)


def problem_page(title: str, message: str, lang: str = "en") -> str:
    """A page that explains why there is no form (unknown basket, bad return URL, paid basket)."""
    return _page(title, _render(_PROBLEM, message=message), lang)


def content_security_policy(return_url: str | None = None) -> str:
    """Strict CSP. Browsers apply `form-action` to the redirect after a POST too, so the checked
    return URL's origin is allowed there (and nowhere else)."""
    form_action = "'self'"
    if return_url:
        parts = urlsplit(return_url)
        port = f":{parts.port}" if parts.port else ""
        form_action += f" {parts.scheme.lower()}://{(parts.hostname or '').lower()}{port}"
    return (
        f"default-src 'none'; style-src 'sha256-{STYLE_HASH}'; form-action {form_action}; "
        "base-uri 'none'; frame-ancestors 'none'"
    )
