"""GET /sidebar through its Lambda handler (moto)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from functions.storefront import get_sidebar
from tests.integration.storefront.support import base
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from webstore import keys
from webstore.catalog import SidebarModule
from webstore.db import to_item
from webstore.players import RecentPayment, StoreStats
from webstore.repo.store import StoreRepository


def sidebar(invoke: Invoke, demo: DemoStore) -> list[dict[str, Any]]:
    response = invoke(get_sidebar.handler, "GET", f"{base(demo)}/sidebar")
    assert response.status == 200, response.body
    assert response.headers["content-type"] == "application/json"
    return list(response.json()["data"])


def by_type(modules: list[dict[str, Any]]) -> dict[str, Any]:
    return {m["type"]: m["data"] for m in modules}


def test_demo_store_modules_in_order(demo: DemoStore, invoke: Invoke) -> None:
    modules = sidebar(invoke, demo)
    assert [m["type"] for m in modules] == [
        "textbox",
        "community_goal",
        "recent_payments",
        "top_customer",
        "featured_package",
        "payment_goal",
        "giftcard_balance",
        "server_status",
    ]
    assert [m["order"] for m in modules] == list(range(1, 9))
    assert modules[0]["title"] == "Welcome" and modules[0]["data"]["header"] == "Welcome"
    data = by_type(modules)
    text = "<p>Thanks for supporting the server!</p>"
    assert data["textbox"] == {"header": "Welcome", "text": text, "content": text}
    assert data["community_goal"]["id"] == 1
    assert data["community_goal"]["target"] == 250.0
    assert data["community_goal"]["current"] == 0.0
    assert data["community_goal"]["percentage"] == 0.0
    assert data["recent_payments"] == {"header": "Recent payments", "payments": []}
    assert data["top_customer"] == {
        "header": "Top customer",
        "username": "",
        "username_id": "",
        "total": 0.0,
        "currency": "USD",
        "month": datetime.now(UTC).strftime("%Y-%m"),
    }
    featured = data["featured_package"]["package"]
    assert (featured["id"], featured["ident"], featured["total_price"]) == (11, "pkg_2_11", 5.0)
    assert featured["category"] == {"id": 2, "name": "Items"}
    assert data["payment_goal"]["target"] == 500.0 and data["payment_goal"]["current"] == 0.0
    assert data["giftcard_balance"] == {"header": "Gift card balance", "currency": "USD"}
    assert data["server_status"] == {
        "header": "Server",
        "hostname": "play.demo-craft.test",
        "port": 25565,
        "online": False,
        "players": None,
        "address": "play.demo-craft.test",
    }


def test_stats_feed_the_payment_modules(demo: DemoStore, invoke: Invoke) -> None:
    now = datetime.now(UTC)
    stats = StoreStats(
        recent_payments=[
            RecentPayment(
                username=f"p{i}",
                package="VIP",
                amount=Decimal("4.99"),
                currency="USD",
                date=now - timedelta(hours=i),
            )
            for i in range(8)
        ],
        month=now.strftime("%Y-%m"),
        month_revenue=Decimal("125.5"),
        top_customer={"username": "Steve", "total": Decimal("60.25")},
    )
    demo.table.put(to_item(stats, keys.store_pk(1), keys.STATS_ITEM, "stats"))
    data = by_type(sidebar(invoke, demo))
    assert [p["username"] for p in data["recent_payments"]["payments"]] == ["p0", "p1", "p2", "p3", "p4"]
    assert data["recent_payments"]["payments"][0]["amount"] == 4.99
    assert data["top_customer"] == {
        "header": "Top customer",
        "username": "Steve",
        "username_id": "",  # stats written before platform ids were kept
        "total": 60.25,
        "currency": "USD",
        "month": now.strftime("%Y-%m"),
    }
    assert data["payment_goal"]["current"] == 125.5
    assert data["payment_goal"]["percentage"] == 25.1


def test_last_months_stats_do_not_count(demo: DemoStore, invoke: Invoke) -> None:
    stats = StoreStats(
        month="2001-01", month_revenue=Decimal(900), top_customer={"username": "Old", "total": 1}
    )
    demo.table.put(to_item(stats, keys.store_pk(1), keys.STATS_ITEM, "stats"))
    data = by_type(sidebar(invoke, demo))
    assert data["top_customer"]["username"] == ""
    assert data["payment_goal"]["current"] == 0.0


def test_missing_or_disabled_targets_are_left_out(demo: DemoStore, invoke: Invoke) -> None:
    repo = StoreRepository(demo.table)
    store = repo.store(1)
    store.sidebar = [
        SidebarModule(type="featured_package", title="Gone", order=1, settings={"package_id": 4040}),
        SidebarModule(type="community_goal", title="Gone", order=2, settings={"goal_id": 77}),
        SidebarModule(type="featured_package", title="Sword", order=3, settings={"package_id": 10}),
    ]
    demo.table.put(repo.store_item(store))
    modules = sidebar(invoke, demo)
    assert [(m["id"], m["type"]) for m in modules] == [(3, "featured_package")]
    assert modules[0]["data"]["package"]["name"] == "Diamond Sword"


def test_an_instance_reads_the_packages_it_saw_featured_beside_the_query_and_never_stale(
    demo: DemoStore, invoke: Invoke
) -> None:
    """The ids a sidebar featured are remembered per instance and read early; the packages are
    read afresh every time, and a changed feature is read after the Query."""
    featured = by_type(sidebar(invoke, demo))["featured_package"]["package"]
    assert featured["id"] == 11
    repo = StoreRepository(demo.table)
    package = repo.package(1, 11)
    assert package is not None
    demo.table.put(repo.entity_item(1, package.model_copy(update={"name": "Renamed"})))
    assert by_type(sidebar(invoke, demo))["featured_package"]["package"]["name"] == "Renamed"
    store = repo.store(1)
    store.sidebar = [
        SidebarModule(type="featured_package", title="Sword", order=1, settings={"package_id": 10})
    ]
    demo.table.put(repo.store_item(store))
    modules = sidebar(invoke, demo)
    assert [m["data"]["package"]["name"] for m in modules] == ["Diamond Sword"]


def test_unknown_token(demo: DemoStore, invoke: Invoke) -> None:
    response = invoke(get_sidebar.handler, "GET", f"/api/accounts/1-{'0' * 32}/sidebar")
    assert response.status == 404
