"""The sidebar's gift-card balance form through the real handler: a good card's balance and
expiry, one refusal for unknown, void and expired cards, the brute-force guard's 429, the
module's form, the echoed code escaped."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import quote

import pytest

from functions.shop import get_giftcard, get_home
from tests.support.demo import DemoStore
from tests.support.shop import ShopClient
from webstore.catalog import GiftCard
from webstore.failure_guard import blocked
from webstore.repo.account import AccountRepository
from webstore.services import get_services
from webstore.shop.giftcard import REFUSED

KNOWN = "GIFT-0000-0000-0001"  # the demo store's card: 10.00 USD, no expiry
ALLOWED = 3


@pytest.fixture(autouse=True)
def guard(demo: DemoStore, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    del demo
    services = get_services()
    monkeypatch.setattr(services.settings, "secret_failures_allowed", ALLOWED)
    monkeypatch.setattr(services.settings, "secret_failure_window_seconds", 300)
    blocked.clear()
    yield
    blocked.clear()


def seed(demo: DemoStore, number: str, **fields: object) -> None:
    values: dict[str, object] = {
        "id": 90 + len(number),
        "card_number": number,
        "balance": Decimal("25.00"),
        "starting_balance": Decimal("50.00"),
        "currency": "USD",
        "created_at": datetime.now(UTC) - timedelta(days=30),
    } | fields
    account_id = get_services().settings.shop_store_id
    demo.table.put(AccountRepository(demo.table).giftcard_item(account_id, GiftCard(**values)))


def look_up(player: ShopClient, code: str) -> tuple[int, str, dict[str, str]]:
    answer = player.get(get_giftcard.handler, f"/gift-card?code={quote(code)}")
    return answer.status, answer.body, answer.headers


def test_the_module_shows_a_get_form_that_works_without_script(player: ShopClient) -> None:
    home = player.get(get_home.handler, "/").body
    module = home[home.index('class="module giftcard"') :]
    module = module[: module.index("</section>")]
    assert 'method="get" action="/gift-card"' in module
    assert 'name="code"' in module
    assert "Gift card code" in module


def test_a_known_card_shows_its_balance_and_expiry_privately(demo: DemoStore, player: ShopClient) -> None:
    status, body, headers = look_up(player, KNOWN)
    assert status == 200, body
    assert "$10.00" in body and "Never" in body
    assert headers["cache-control"] == "no-store"
    seed(demo, "GIFT-LATER", expires_at=datetime(2031, 5, 4, tzinfo=UTC))
    status, body, _ = look_up(player, "  GIFT-LATER ")
    assert status == 200, body
    assert "$25.00" in body and "2031-05-04" in body
    assert REFUSED not in body


def test_unknown_void_and_expired_cards_get_the_same_refusal(demo: DemoStore, player: ShopClient) -> None:
    seed(demo, "GIFT-VOID", void=True)
    seed(demo, "GIFT-OLD", expires_at=datetime.now(UTC) - timedelta(days=1))
    answers = [look_up(player, code) for code in ("GIFT-NOPE", "GIFT-VOID", "GIFT-OLD")]
    for status, body, headers in answers:
        assert status == 404
        assert REFUSED in body
        assert "$25.00" not in body and "$" not in body.split('id="form-error"')[1][:200]
        assert headers["cache-control"] == "no-store"
    # Nothing but the echoed code tells the three apart.
    first = answers[0][1].replace("GIFT-NOPE", "X")
    assert answers[1][1].replace("GIFT-VOID", "X").count("<") == first.count("<")
    assert answers[2][1].replace("GIFT-OLD", "X").count("<") == first.count("<")


def test_an_empty_code_is_a_422_naming_the_field(player: ShopClient) -> None:
    status, body, _ = look_up(player, "  ")
    assert status == 422
    assert "Enter a gift card code" in body


def test_the_guard_answers_429_past_the_allowed_tries_per_address(player: ShopClient) -> None:
    for n in range(ALLOWED):
        assert look_up(player, f"GIFT-GUESS-{n}")[0] == 404
    status, body, headers = look_up(player, KNOWN)  # even the right code, once blocked
    assert status == 429
    assert 0 < int(headers["retry-after"]) <= 300
    assert "Too many gift card look-ups from this address" in body
    assert "$10.00" not in body
    assert look_up(player, KNOWN)[0] == 429
    other = ShopClient(source_ip="198.51.100.99")  # another address is not blocked
    assert look_up(other, KNOWN)[0] == 200


def test_the_echoed_code_is_escaped(player: ShopClient) -> None:
    code = '"><script>alert(1)</script>'
    status, body, _ = look_up(player, code)
    assert status == 404
    assert "<script>alert(1)" not in body
    assert "&#34;&gt;&lt;script&gt;" in body or "&quot;&gt;&lt;script&gt;" in body


def test_the_answer_speaks_the_visitors_language(player: ShopClient) -> None:
    player.cookies["shop_lang"] = "de"
    status, body, _ = look_up(player, "GIFT-NOPE")
    assert status == 404
    assert "Keine Geschenkkarte mit diesem Code" in body
    assert "Geschenkkartencode" in body
