"""Records stay well inside DynamoDB's 400 KB item limit (issue 10.9): a basket grown with
large variable_data lines and the 51st payment note are refused with a 422 naming what is too
big, and what was stored before stays readable."""

from __future__ import annotations

import json
from typing import Any

from functions.operator import create_payment, create_payment_note, get_payment
from functions.storefront import add_basket_package, create_basket, get_basket
from tests.support.demo import DemoStore, demo_catalog_data
from tests.support.invocation import Invoke
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.repo.payments import MAX_NOTES


def test_a_basket_past_the_size_limit_is_refused_and_stays_readable(demo: DemoStore, invoke: Invoke) -> None:
    data: dict[str, Any] = demo_catalog_data()
    extra = [
        {**data["packages"][2], "id": 100 + n, "name": f"Sword {n}", "slug": f"sword-{n}"} for n in range(12)
    ]
    data["packages"] = [*data["packages"], *extra]
    import_catalog(demo.table, parse_catalog(data))
    base = f"/api/accounts/{demo.token}"
    ident = invoke(create_basket.handler, "POST", f"{base}/baskets", body={}).json()["data"]["ident"]
    big = {f"v{n}": "\U0001f5e1" * 500 for n in range(20)}  # 20 values of 2,000 bytes: 40 KB a line

    statuses = []
    for package in extra:
        body = {"package_id": package["id"], "quantity": 1, "variable_data": big}
        response = invoke(
            add_basket_package.handler,
            "POST",
            f"/api/baskets/{ident}/packages",
            raw_body=json.dumps(body, ensure_ascii=False),  # 40 KB as UTF-8, under the body limit
            headers={"content-type": "application/json"},
        )
        statuses.append(response.status)
        if response.status != 200:
            assert response.status == 422, response.body
            body = response.json()
            # The order's payment record (which holds every line) fills up before the basket
            # item does: whichever limit comes first refuses with a 422 naming its field.
            assert [f["field"] for f in body["field_details"]] in (["basket"], ["quantity"])
            break
    assert statuses[-1] == 422 and set(statuses[:-1]) == {200}

    later = invoke(get_basket.handler, "GET", f"{base}/baskets/{ident}")
    assert later.status == 200
    assert len(later.json()["data"]["packages"]) == len(statuses) - 1


def test_a_payment_holds_at_most_fifty_notes(demo: DemoStore, invoke: Invoke) -> None:
    secret = {"X-Tebex-Secret": demo.server_secret}
    payment = invoke(
        create_payment.handler,
        "POST",
        "/payments",
        headers=secret,
        body={"ign": "Steve", "packages": [{"id": 10, "options": {}}], "price": 1},
    )
    assert payment.status == 200, payment.body
    txn = payment.json()["txn_id"]
    note = "\U0001f4dd" * 1000  # the longest note: 4,000 bytes
    for _ in range(MAX_NOTES):
        added = invoke(
            create_payment_note.handler, "POST", f"/payments/{txn}/note", headers=secret, body={"note": note}
        )
        assert added.status == 200, added.body

    refused = invoke(
        create_payment_note.handler, "POST", f"/payments/{txn}/note", headers=secret, body={"note": "x"}
    )
    assert refused.status == 422, refused.body
    assert "at most 50 notes" in refused.json()["error_message"]

    missing = invoke(
        create_payment_note.handler,
        "POST",
        "/payments/tbx-999-0000abcd/note",
        headers=secret,
        body={"note": "x"},
    )
    assert missing.status == 404

    shown = invoke(get_payment.handler, "GET", f"/payments/{txn}", headers=secret)
    assert shown.status == 200 and len(shown.json()["notes"]) == MAX_NOTES
