"""GET /player/{id}/packages as the C# SDK calls it (GetActivePackagesForCustomer and
GetActivePackageById), through the real handlers, parsed with its ActivePackage types."""

from __future__ import annotations

from functions.operator import get_player_packages, get_user, update_payment
from tests.integration.operator import client_shapes
from tests.integration.operator.support import manual_payment, secret_headers
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys


def test_csharp_sdk_active_packages_for_customer(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    sword = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 10}], price=2.5)
    pet = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 12}], price=3)
    vip = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 1}], price=4.99)
    refunded = invoke(
        update_payment.handler, "PUT", f"/payments/{vip['txn_id']}", headers=h, body={"status": "refund"}
    )
    assert refunded.status == 200

    for ref in ("Steve", "steve", keys.player_uuid("Steve"), keys.player_uuid("Steve").replace("-", "")):
        response = invoke(get_player_packages.handler, "GET", f"/player/{ref}/packages", headers=h)
        assert response.status == 200, response.body
        found = [client_shapes.CsActivePackage.model_validate(p) for p in response.json()]
        # Newest first; the refunded VIP no longer stands.
        assert [(p.txn_id, p.package.id, p.quantity) for p in found] == [
            (pet["txn_id"], 12, 1),
            (sword["txn_id"], 10, 1),
        ]
        assert found[0].package.name == "Pet Unlock"

    one = invoke(
        get_player_packages.handler, "GET", "/player/Steve/packages", headers=h, query={"package": "10"}
    )
    assert [p["package"]["id"] for p in one.json()] == [10]
    none = invoke(
        get_player_packages.handler, "GET", "/player/Steve/packages", headers=h, query={"package": "1"}
    )
    assert none.status == 200 and none.json() == []


def test_player_packages_unknown_player_or_bad_package(demo: DemoStore, invoke: Invoke) -> None:
    h = secret_headers(demo.server_secret)
    unknown = invoke(get_player_packages.handler, "GET", "/player/Nobody/packages", headers=h)
    assert unknown.status == 404 and unknown.json()["error_message"] == "Player not found"
    manual_payment(invoke, demo.server_secret, ign="Steve")
    bad = invoke(
        get_player_packages.handler, "GET", "/player/Steve/packages", headers=h, query={"package": "x"}
    )
    assert bad.status == 422 and "package" in bad.json()["error_message"]


def test_player_packages_by_the_plugin_username_id_user_answers(demo: DemoStore, invoke: Invoke) -> None:
    """CS `GetActivePackagesForCustomer(plugin_username_id)`: the numeric id from `/user/{name}`."""
    h = secret_headers(demo.server_secret)
    sword = manual_payment(invoke, demo.server_secret, ign="Steve", packages=[{"id": 10}], price=2.5)
    user = invoke(get_user.handler, "GET", "/user/Steve", headers=h)
    numeric = user.json()["player"]["plugin_username_id"]
    assert isinstance(numeric, int)
    response = invoke(get_player_packages.handler, "GET", f"/player/{numeric}/packages", headers=h)
    assert response.status == 200, response.body
    found = [client_shapes.CsActivePackage.model_validate(p) for p in response.json()]
    assert [(p.txn_id, p.package.id) for p in found] == [(sword["txn_id"], 10)]
    unknown = invoke(get_player_packages.handler, "GET", "/player/987654/packages", headers=h)
    assert unknown.status == 404 and unknown.json()["error_message"] == "Player not found"
