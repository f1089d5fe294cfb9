"""Every player e-mail in each of the shop's languages (docs/mail.md, "Language"): subject,
HTML and plain text in the store's language, nothing left in English; an owner's own wording
sent as written."""

from __future__ import annotations

import re

import pytest

from tests.unit.test_mail_messages import PAYMENT, RECURRING
from webstore.catalog import StoreProfile
from webstore.mail.compose import SUBJECTS, Documents, compose
from webstore.mail.messages import MessageKind
from webstore.mail.sign_in import compose_sign_in
from webstore.repo.mail import TemplateOverride

GIFT = {"code": "GC-1", "balance": 10, "currency": "EUR", "expires_at": "2027-01-01T00:00:00+00:00"}
MANAGE = "https://shop.test/subscriptions/1.tbx.mac"
DOCUMENTS = Documents(
    invoice=("INV-1", "https://shop.test/i/1"), credit_note=("CN-1", "https://shop.test/c/1")
)
# Sentences of the English messages that a translated one must not contain.
ENGLISH = re.compile(r"\b(Your|You|We|The|This|Thank|Total paid|Terms|Refund policy)\b")


def store(lang: str) -> StoreProfile:
    return StoreProfile(
        id=1,
        name="Kraft",
        lang=lang,
        webstore_url="https://kraft.example",
        terms_url="https://kraft.example/agb",
        refund_policy_url="https://kraft.example/refunds",
    )


def subject_of(kind: MessageKind) -> dict[str, object]:
    if kind is MessageKind.GIFT_CARD:
        return {**GIFT, "message": "Viel Spaß!"}
    return PAYMENT if kind in (MessageKind.RECEIPT, MessageKind.REFUND) else RECURRING


@pytest.mark.parametrize("lang", ["de", "fr", "es", "pt-BR"])
@pytest.mark.parametrize("kind", [k for k in MessageKind if k is not MessageKind.SIGN_IN])
def test_every_message_is_in_the_stores_language(kind: MessageKind, lang: str) -> None:
    english = compose(kind, store("en"), subject_of(kind), manage_url=MANAGE, documents=DOCUMENTS)
    composed = compose(kind, store(lang), subject_of(kind), manage_url=MANAGE, documents=DOCUMENTS)

    assert english.subject == SUBJECTS[kind] % {"store": "Kraft"}
    assert composed.subject != english.subject and "Kraft" in composed.subject
    assert f'<html lang="{lang}">' in composed.html
    for part in (composed.html, composed.text):
        visible = re.sub(r"<[^>]+>|https://\S+", " ", part)
        assert not ENGLISH.search(visible), ENGLISH.findall(visible)
    assert ENGLISH.search(english.text)


def test_the_sign_in_link_is_in_the_stores_language() -> None:
    composed = compose_sign_in(store("fr"), "https://shop.test/in/1")
    assert composed.subject == "Votre lien de connexion pour Kraft"
    assert "Voir mes abonnements" in composed.html and "fonctionne une seule fois" in composed.text


def test_a_store_in_another_language_sends_english() -> None:
    composed = compose(MessageKind.RECEIPT, store("nl"), PAYMENT)
    assert composed.subject == "Your receipt from Kraft" and "Total paid" in composed.text


def test_the_owners_own_wording_is_sent_as_written() -> None:
    own = TemplateOverride(subject="Danke, {{ store.name }}!", html="<p>Thanks a lot.</p>")
    composed = compose(MessageKind.RECEIPT, store("de"), PAYMENT, override=own)
    assert composed.subject == "Danke, Kraft!"
    assert "<p>Thanks a lot.</p>" in composed.html  # not translated
    assert "Du erhältst diese E-Mail wegen eines Kaufs bei Kraft." in composed.html  # the frame is
