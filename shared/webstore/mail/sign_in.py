"""The "Find my subscriptions" sign-in message (templates/mail/sign_in.*), in the store's brand
like the others: the mail consumer sends it from the `subscriptions.sign-in.requested` event
the hosted form's use case writes (webstore.subscriptions.find_by_email), always in the
house's words (an owner neither switches it off nor rewrites it)."""

from __future__ import annotations

from webstore.catalog import StoreProfile
from webstore.html.player import Words
from webstore.mail.compose import DEFAULT_ACCENT, Composed, in_language
from webstore.storefront.theme import brand

KIND = "sign_in"
SUBJECT = "Your sign-in link for %(store)s"


def compose_sign_in(store: StoreProfile, url: str, words: Words | None = None) -> Composed:
    look = brand(store)
    context = {
        "brand": look,
        "store": store,
        "accent": store.primary_color or DEFAULT_ACCENT,
        "kind": KIND,
        "url": url,
    }
    return in_language(look, f"mail/{KIND}", SUBJECT, context, words)
