"""Gift cards from the plugins (C# SDK JSON, BuycraftX form) through the real handlers, and the
storefront honouring what they change (balances, voids)."""

from __future__ import annotations

import json
from typing import Any

from functions.operator import (
    create_checkout_link,
    create_gift_card,
    get_gift_card,
    get_gift_cards,
    lookup_gift_card,
    top_up_gift_card,
    void_gift_card,
)
from functions.storefront import apply_giftcard
from tests.integration.operator import client_shapes
from tests.integration.operator.support import secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke

FORM = {"content-type": "application/x-www-form-urlencoded"}


def _checkout_basket(invoke: Invoke, demo: DemoStore) -> str:
    body = {"package_id": 10, "username": "Notch"}
    made = invoke(
        create_checkout_link.handler,
        "POST",
        "/checkout",
        body=body,
        headers=secret_headers(demo.server_secret),
    )
    assert made.status == 201, made.body
    return str(made.json()["url"]).rsplit("/", 1)[1]


def _apply(invoke: Invoke, demo: DemoStore, ident: str, code: str) -> Any:
    path = f"/api/accounts/{demo.token}/baskets/{ident}/giftcards"
    return invoke(apply_giftcard.handler, "POST", path, body={"card_number": code})


def test_csharp_sdk_gift_card_calls_parse(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    listed = invoke(get_gift_cards.handler, "GET", "/gift-cards", headers=h)
    assert listed.status == 200, listed.body
    cards = client_shapes.CsGiftCardList.model_validate(listed.json()).data
    assert [(c.id, c.code, c.balance.remaining) for c in cards] == [(1, "GIFT-0000-0000-0001", "10.00")]

    # Newtonsoft writes amount 10.0 and a UTC DateTime with 7 fraction digits.
    raw = '{"expires_at": "2099-12-31T00:00:00.1234567Z", "note": "prize", "amount": 10.0}'
    created = invoke(
        create_gift_card.handler,
        "POST",
        "/gift-cards",
        raw_body=raw,
        headers={**h, "content-type": "application/json"},
    )
    assert created.status == 200, created.body
    card = client_shapes.CsGiftCardData.model_validate(created.json()).data
    assert card.balance.starting == "10.00" and card.balance.currency == "USD" and card.note == "prize"
    assert card.expires_at is not None and card.expires_at.startswith("2099-12-31T00:00:00.123456")
    assert len(card.code) == 16 and not card.void

    got = invoke(get_gift_card.handler, "GET", f"/gift-cards/{card.id}", headers=h)
    assert client_shapes.CsGiftCardData.model_validate(got.json()).data == card
    # TopUp sends the amount as a string in the machine's culture.
    topped = invoke(
        top_up_gift_card.handler, "PUT", f"/gift-cards/{card.id}", headers=h, body={"amount": "2,5"}
    )
    assert topped.status == 200, topped.body
    after = client_shapes.CsGiftCardData.model_validate(topped.json()).data
    assert after.balance.remaining == "12.50" and after.balance.starting == "10.00"
    voided = invoke(void_gift_card.handler, "DELETE", f"/gift-cards/{card.id}", headers=h, raw_body="")
    assert voided.status == 200 and client_shapes.CsGiftCardData.model_validate(voided.json()).data.void
    assert invoke(get_gift_cards.handler, "GET", "/gift-cards", headers=h).json()["data"][1]["void"] is True


def test_buycraftx_form_gift_card_create_and_top_up(demo: DemoStore, invoke: Invoke) -> None:
    h = {"X-Buycraft-Secret": demo.server_secret, **FORM}
    created = invoke(create_gift_card.handler, "POST", "/gift-cards", raw_body="amount=5.50&note=", headers=h)
    assert created.status == 200, created.body
    card = created.json()["data"]
    assert card["balance"]["remaining"] == "5.50" and card["expires_at"] is None
    topped = invoke(
        top_up_gift_card.handler, "PUT", f"/gift-cards/{card['id']}", raw_body="amount=1", headers=h
    )
    assert topped.json()["data"]["balance"]["remaining"] == "6.50"


def test_gift_card_bad_input_names_the_field(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    for body, field in (
        ({"note": "x"}, "amount"),
        ({"amount": 0}, "amount"),
        ({"amount": "lots"}, "amount"),
        ({"amount": 5, "expires_at": "soon"}, "expires_at"),
        ({"amount": 5, "expires_at": "2001-01-01 00:00:00"}, "expires_at"),
    ):
        response = invoke(create_gift_card.handler, "POST", "/gift-cards", body=body, headers=h)
        assert response.status == 422, (body, response.body)
        assert field in response.json()["error_message"]
    for path in ("/gift-cards/999", "/gift-cards/abc"):
        assert invoke(get_gift_card.handler, "GET", path, headers=h).status == 404
        assert invoke(void_gift_card.handler, "DELETE", path, headers=h).status == 404
    bad = invoke(top_up_gift_card.handler, "PUT", "/gift-cards/1", headers=h, body={"amount": -1})
    assert bad.status == 422 and "amount" in bad.json()["error_message"]


def test_storefront_honours_gift_card_top_ups_and_voids(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    created = invoke(create_gift_card.handler, "POST", "/gift-cards", body={"amount": 1}, headers=h)
    card = created.json()["data"]
    ident = _checkout_basket(invoke, demo)
    applied = _apply(invoke, demo, ident, card["code"])
    assert applied.status == 200, applied.body

    voided = invoke(void_gift_card.handler, "DELETE", f"/gift-cards/{card['id']}", headers=h)
    assert voided.status == 200
    refused = _apply(invoke, demo, _checkout_basket(invoke, demo), card["code"])
    assert refused.status == 422 and "no longer valid" in json.dumps(refused.json())
    no_top_up = invoke(
        top_up_gift_card.handler, "PUT", f"/gift-cards/{card['id']}", headers=h, body={"amount": 1}
    )
    assert no_top_up.status == 409 and "void" in no_top_up.json()["error_message"]


def test_imported_card_spent_to_zero_can_be_topped_up_and_used_again(demo: DemoStore, invoke: Invoke) -> None:
    from decimal import Decimal

    from webstore import keys

    h = secret_headers(demo.server_secret)
    key = keys.key(keys.account_pk(1), keys.giftcard_sk("GIFT-0000-0000-0001"))
    demo.table.update(key, "SET balance = :z", values={":z": Decimal(0)})
    empty = _apply(invoke, demo, _checkout_basket(invoke, demo), "GIFT-0000-0000-0001")
    assert empty.status == 422 and "no balance" in json.dumps(empty.json())
    assert (
        invoke(top_up_gift_card.handler, "PUT", "/gift-cards/1", headers=h, body={"amount": 3}).status == 200
    )
    assert _apply(invoke, demo, _checkout_basket(invoke, demo), "GIFT-0000-0000-0001").status == 200


def test_gift_card_lookup_by_code(demo: DemoStore, invoke: Invoke) -> None:
    """`GET /gift-cards/lookup/{code}` (the plugin docs; a public Python client's
    `lookup_gift_card(code)`): `{data: GiftCard}` by the card's number, any case; unknown 404."""
    h = secret_headers(demo.server_secret)
    for code in ("GIFT-0000-0000-0001", "gift-0000-0000-0001"):
        found = invoke(lookup_gift_card.handler, "GET", f"/gift-cards/lookup/{code}", headers=h)
        assert found.status == 200, found.body
        card = client_shapes.CsGiftCardData.model_validate(found.json()).data
        assert (card.id, card.code, card.balance.remaining) == (1, "GIFT-0000-0000-0001", "10.00")
    missing = invoke(lookup_gift_card.handler, "GET", "/gift-cards/lookup/NOPE-0000", headers=h)
    assert missing.status == 404 and missing.json()["error_message"] == "Gift card not found"
