"""The hosted checkout through its Lambda handlers: pay once, decline, double submits, races."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlencode

import pytest

from functions.operator import get_due_players, get_payment, get_payments
from functions.storefront import (
    add_basket_package,
    create_basket,
    get_basket,
    get_checkout_page,
    get_checkout_receipt,
    pay_checkout,
)
from tests.integration.operator.support import manual_payment
from tests.integration.storefront.support import ACCOUNT
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.threads import in_threads
from webstore.checkout import checkout
from webstore.checkout.gateway import SANDBOX_DECLINED_CARD
from webstore.repo.store import StoreRepository
from webstore.services import get_services

FORM = {"content-type": "application/x-www-form-urlencoded"}


def new_basket(invoke: Invoke, demo: DemoStore, **body: Any) -> str:
    body = {
        "complete_url": "http://localhost:3000/thanks",
        "cancel_url": "http://localhost:3000/basket",
        "username": "Steve",
        "custom": {"order_ref": "A-1"},
        **body,
    }
    created = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body=body)
    assert created.status == 200, created.body
    ident: str = created.json()["data"]["ident"]
    added = invoke(
        add_basket_package.handler,
        "POST",
        f"/api/baskets/{ident}/packages",
        body={"package_id": 10, "quantity": 2},
    )
    assert added.status == 200, added.body
    return ident


def attempt_key_of(page: Response) -> str:
    match = re.search(r'name=attempt_key value="([^"]+)"', page.body)
    assert match, page.body
    return match.group(1)


# The form's `amount_due` for tests that do not check it: a page that showed at least whatever
# these tests charge (the "never more than shown" rule: test_pay_prices_now.py).
SHOWN_ANY = "100000.00"


def pay(invoke: Invoke, ident: str, key: str, card: str = "4242 4242 4242 4242") -> Response:
    return invoke(
        pay_checkout.handler,
        "POST",
        f"/checkout/{ident}/pay",
        raw_body=urlencode({"attempt_key": key, "card_number": card, "amount_due": SHOWN_ANY}),
        headers=FORM,
    )


def basket_json(invoke: Invoke, demo: DemoStore, ident: str) -> dict[str, Any]:
    data: dict[str, Any] = invoke(
        get_basket.handler, "GET", f"/api/accounts/{demo.token}/baskets/{ident}"
    ).json()["data"]
    return data


def payments(invoke: Invoke, demo: DemoStore) -> list[dict[str, Any]]:
    response = invoke(
        get_payments.handler, "GET", "/payments", headers={"X-Tebex-Secret": demo.server_secret}
    )
    assert response.status == 200, response.body
    found: list[dict[str, Any]] = response.json()
    return found


def test_checkout_page_shows_the_basket(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo)
    link = basket_json(invoke, demo, ident)["links"]["checkout"]
    assert link == f"https://shop.test/checkout/{ident}"
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200
    assert page.headers["content-type"].startswith("text/html")
    assert (
        "Content-Security-Policy" in {k.title() for k in page.headers}
        or "content-security-policy" in page.headers
    )
    assert "Diamond Sword" in page.body
    assert "$5.00 USD" in page.body  # 2 x 2.50
    assert 'href="http://localhost:3000/basket"' in page.body


def test_pay_completes_the_basket_records_the_payment_and_queues_commands(
    demo: DemoStore, invoke: Invoke
) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    paid = pay(invoke, ident, key)
    assert paid.status == 303
    assert paid.headers["location"] == f"https://shop.test/checkout/{ident}/receipt"

    basket = basket_json(invoke, demo, ident)
    assert basket["complete"] is True
    assert basket["links"] == {"payment": f"https://shop.test/checkout/{ident}/receipt"}
    [payment] = payments(invoke, demo)
    assert payment["amount"] == "5.00"
    assert payment["player"]["name"] == "Steve"
    assert payment["gateway"]["name"] == "Sandbox"

    queue = invoke(
        get_due_players.handler, "GET", "/queue", headers={"X-Tebex-Secret": demo.server_secret}
    ).json()
    assert [p["name"] for p in queue["players"]] == ["Steve"]

    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200 and payment["id"] and "Thank you" in receipt.body

    item = demo.table.get({"PK": f"BASKET#{ident}", "SK": "BASKET"})
    assert item is not None and "expires_at" not in item  # a completed basket never expires

    completed = [e for e in get_services().publisher.published if e.type == "payment.completed"]  # type: ignore[attr-defined]
    assert completed and completed[-1].subject["custom"] == {"order_ref": "A-1"}


def test_auto_redirect_goes_to_complete_url(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo, complete_auto_redirect=True)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    assert pay(invoke, ident, key).headers["location"] == "http://localhost:3000/thanks"


def test_declined_card_leaves_the_basket_payable(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    declined = pay(invoke, ident, key, SANDBOX_DECLINED_CARD)
    assert declined.status == 402
    assert "declined" in declined.body
    assert basket_json(invoke, demo, ident)["complete"] is False
    assert payments(invoke, demo) == []
    assert any(e.type == "payment.declined" for e in get_services().publisher.published)  # type: ignore[attr-defined]
    # The same key again shows the decline; a fresh page pays.
    assert pay(invoke, ident, key).status == 402
    assert pay(invoke, ident, attempt_key_of(declined)).status == 303
    assert len(payments(invoke, demo)) == 1


def test_a_declined_payment_is_published_in_the_payment_subject_shape(
    demo: DemoStore, invoke: Invoke
) -> None:
    """Receivers parse every payment.* subject alike: the decline has the completed payment's
    keys, no transaction, nothing paid, the reason, and the basket that stays unpaid."""
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    declined = pay(invoke, ident, key, SANDBOX_DECLINED_CARD)
    assert pay(invoke, ident, attempt_key_of(declined)).status == 303
    published = {e.type: e.subject for e in get_services().publisher.published}  # type: ignore[attr-defined]
    decline, completed = published["payment.declined"], published["payment.completed"]

    assert set(decline) == set(completed) | {"basket_ident"}
    assert decline["transaction_id"] is None
    assert decline["status"] == {"id": 18, "description": "Declined"}
    assert decline["decline_reason"]["code"] == "card_declined"
    assert decline["decline_reason"]["message"]
    assert decline["price_paid"]["amount"] == 0.0
    assert decline["price"] == completed["price"]
    assert decline["basket_ident"] == ident
    assert decline["customer"]["username"] == completed["customer"]["username"]
    assert [(p["id"], p["quantity"]) for p in decline["products"]] == [(10, 2)]
    assert decline["products"][0].keys() == completed["products"][0].keys()
    assert decline["custom"] == {"order_ref": "A-1"}


def test_double_submit_charges_once(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    first, second = pay(invoke, ident, key), pay(invoke, ident, key)
    assert first.status == second.status == 303
    assert len(payments(invoke, demo)) == 1
    # A reload of the page after paying goes to the receipt, and an old form pays nothing more.
    reload = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert reload.status == 303
    assert pay(invoke, ident, "another-key-0123456789").status == 303
    assert len(payments(invoke, demo)) == 1


def test_concurrent_pays_of_one_basket_make_exactly_one_payment(demo: DemoStore, invoke: Invoke) -> None:
    ident = new_basket(invoke, demo)
    statuses: list[int] = []

    def pay_once(n: int) -> None:
        statuses.append(pay(invoke, ident, f"concurrent-attempt-{n:04d}").status)

    in_threads(pay_once, [(n,) for n in range(6)])
    assert len(payments(invoke, demo)) == 1
    assert statuses.count(303) >= 1
    assert set(statuses) <= {303, 409}


def test_a_basket_being_paid_keeps_an_expiry_and_a_declined_one_gets_its_own_back(
    demo: DemoStore, invoke: Invoke
) -> None:
    """The claim keeps the basket expiring (no later than a day after it), and puts the
    attempt's reconciliation on the schedule; the release takes both back in its transaction."""
    from webstore.checkout import checkout
    from webstore.repo.checkout_attempts import CLAIMED_BASKET_LIFETIME, reconcile_key

    ident = new_basket(invoke, demo)
    key = {"PK": f"BASKET#{ident}", "SK": "BASKET"}
    ttl = demo.table.get(key)["expires_at"]  # type: ignore[index]
    loaded = checkout.load(get_services(), ident, None)
    now = get_services().now()
    checkout._claim(get_services(), loaded.basket, "held-while-charging-0001", now)
    claimed = demo.table.get(key)
    assert claimed is not None
    assert int(claimed["expires_at"]) == max(ttl, int((now + CLAIMED_BASKET_LIFETIME).timestamp()))
    item = reconcile_key(1, ident, "held-while-charging-0001", now)
    assert demo.table.get(item.as_key()) is not None
    checkout._release(
        get_services(), loaded.basket, "held-while-charging-0001", get_services().now(), reason="x"
    )
    assert demo.table.get(key)["expires_at"] == ttl  # type: ignore[index]
    assert demo.table.get(item.as_key()) is None


def test_basket_refuses_changes_while_being_paid(demo: DemoStore, invoke: Invoke) -> None:
    from webstore.checkout import checkout

    ident = new_basket(invoke, demo)
    loaded = checkout.load(get_services(), ident, None)
    checkout._claim(get_services(), loaded.basket, "held-by-another-attempt", get_services().now())
    added = invoke(
        add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body={"package_id": 11}
    )
    assert added.status == 409
    page = pay(invoke, ident, "second-attempt-0123456789")
    assert page.status == 409 and "already in progress" in page.body


@pytest.mark.parametrize("body", [{}, {"attempt_key": "short"}])
def test_malformed_pay_form_is_422(demo: DemoStore, invoke: Invoke, body: dict[str, str]) -> None:
    ident = new_basket(invoke, demo)
    response = invoke(
        pay_checkout.handler, "POST", f"/checkout/{ident}/pay", raw_body=urlencode(body), headers=FORM
    )
    assert response.status == 422
    assert "attempt_key" in response.body


def test_unauthenticated_or_empty_basket_cannot_pay(demo: DemoStore, invoke: Invoke) -> None:
    created = invoke(create_basket.handler, "POST", f"/api/accounts/{demo.token}/baskets", body={})
    ident = created.json()["data"]["ident"]
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 422 and "empty" in page.body
    invoke(add_basket_package.handler, "POST", f"/api/baskets/{ident}/packages", body={"package_id": 10})
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 422 and "Log in" in page.body


def test_unknown_basket_is_a_404_page(demo: DemoStore, invoke: Invoke) -> None:
    page = invoke(get_checkout_page.handler, "GET", "/checkout/1-" + "0" * 32)
    assert page.status == 404 and page.headers["content-type"].startswith("text/html")


def test_order_refused_after_the_charge_is_refunded_and_the_basket_stays_payable(
    demo: DemoStore, invoke: Invoke
) -> None:
    from functions.storefront import apply_coupon
    from webstore import keys

    ident = new_basket(invoke, demo)
    applied = invoke(
        apply_coupon.handler, "POST", f"/api/baskets/{ident}/coupons", body={"coupon_code": "SWORD1"}
    )
    assert applied.status == 200, applied.body
    # Meanwhile other players used up the coupon (limit 100): fulfilment refuses the order.
    demo.table.update(
        keys.key(keys.account_pk(1), keys.coupon_code_sk("SWORD1")),
        "SET redemptions = :n",
        values={":n": 100},
    )
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    refused = pay(invoke, ident, key)
    assert refused.status == 409
    assert "redemption limit" in refused.body and "refunded" in refused.body
    assert payments(invoke, demo) == []
    assert basket_json(invoke, demo, ident)["complete"] is False


def test_sandbox_and_manual_payments_show_their_own_gateway_ids(demo: DemoStore, invoke: Invoke) -> None:
    """The gateway table (docs/decisions.md): 1 Manual, 2 Sandbox, in the list and one by one."""
    ident = new_basket(invoke, demo)
    key = attempt_key_of(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
    assert pay(invoke, ident, key).status == 303
    manual_payment(invoke, demo.server_secret, ign="Alex")

    listed = {p["player"]["name"]: p for p in payments(invoke, demo)}
    expected = {"Steve": {"id": 2, "name": "Sandbox"}, "Alex": {"id": 1, "name": "Manual"}}
    assert {name: p["gateway"] for name, p in listed.items()} == expected
    for name, payment in listed.items():
        one = invoke(
            get_payment.handler,
            "GET",
            f"/payments/{payment['txn_id']}",
            headers={"X-Tebex-Secret": demo.server_secret},
        )
        assert one.json()["gateway"] == expected[name]
    sandbox = checkout.gateway_for(get_services(), StoreRepository(demo.table).store(ACCOUNT))
    assert (sandbox.gateway_id, sandbox.name) == (2, "Sandbox")
