"""The "Find my subscriptions" sign-in message (templates/mail/sign_in.*), in the store's brand
like the others: the mail consumer sends it from the `subscriptions.sign-in.requested` event
the hosted form's use case writes (webstore.subscriptions.find_by_email), always in the
house's words (an owner neither switches it off nor rewrites it)."""

from __future__ import annotations

from webstore.catalog import StoreProfile
from webstore.html import render
from webstore.mail.compose import DEFAULT_ACCENT, Composed
from webstore.storefront.theme import brand

KIND = "sign_in"
SUBJECT = "Your sign-in link for {store}"


def compose_sign_in(store: StoreProfile, url: str) -> Composed:
    title = SUBJECT.format(store=store.name)
    context = {
        "brand": brand(store),
        "store": store,
        "accent": store.primary_color or DEFAULT_ACCENT,
        "kind": KIND,
        "url": url,
    }
    return Composed(
        subject=title,
        html=render(f"mail/{KIND}.html", title=title, **context),
        text=render(f"mail/{KIND}.txt", title=title, **context),
    )
