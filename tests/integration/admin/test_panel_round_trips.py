"""Every panel page (each GET route of the admin interface) costs the DynamoDB round trips its
row below says, signed in as the owner on the demo store, through the real handlers: the staff
member is read beside the page's own reads (functions/admin_deps.py), so a page whose data are
known by key (or one Query) is one round trip, the session's check included. A page is two only
where a second read needs what the first returned (named in its row). Counted as
scripts/bench_round_trips.py counts (tests/support/round_trips.py): calls side by side are one
round trip. A new panel page fails the first test until it has a row here."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from functions.declarations import Interface
from functions.routes import Operation, operations
from tests.integration.admin.money_support import pay, use_clock
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from tests.support.round_trips import CallCounter
from webstore.admin import webhooks as panel_webhooks
from webstore.admin.roles import Role
from webstore.repo.webhooks import AttemptOutcome, Failure, WebhookRepository
from webstore.services import get_services

EVENT_ID = "round-trips-1"

# operationId → (path, query, round trips, why a second one when there is one). `{payment}`,
# `{subscription}`, `{endpoint}` and `{delivery}` are what `seeded` made.
PAGES: dict[str, list[tuple[str, dict[str, str], int, str]]] = {
    "getLogin": [("/login", {}, 0, "")],  # signed in: straight to the panel, nothing read
    "getStaticAsset": [("/static/htmx.min.js", {}, 0, "")],
    "getDashboard": [("/", {}, 1, ""), ("/", {"days": "365"}, 1, "")],
    "getAccount": [("/account", {}, 1, "")],
    "getStaff": [("/staff", {}, 1, "")],
    "getAuditLog": [("/audit", {}, 1, "")],
    "getCatalog": [("/catalog", {}, 1, "")],
    "listCatalogSection": [("/catalog/packages", {}, 1, ""), ("/catalog/coupons", {}, 1, "")],
    "getCatalogElement": [("/catalog/packages/10", {}, 1, ""), ("/catalog/packages/new", {}, 1, "")],
    "getStoreSettings": [("/settings", {}, 1, "")],
    "getTaxSettings": [("/settings/tax", {}, 1, "")],
    "getGoLive": [("/go-live", {}, 1, "")],
    "getSetup": [("/setup", {}, 1, ""), ("/setup", {"step": "package"}, 1, "")],
    "searchPayments": [
        ("/payments", {}, 1, ""),
        ("/payments", {"player": "Steve"}, 2, "the name is looked up, then its payments"),
    ],
    "getPaymentPage": [("/payments/{payment}", {}, 2, "the payment, then its commands' queue entries")],
    # the period's payments (a Query per status, side by side) and the store: one page per status
    "getTaxReport": [("/tax-report", {"quarter": "2026-Q1"}, 1, ""), ("/tax-report", {}, 1, "")],
    "exportTaxReport": [("/tax-report.csv", {"from": "2026-01-01", "to": "2026-03-31"}, 1, "")],
    "listSubscriptions": [("/subscriptions", {}, 1, "")],
    "showSubscription": [("/subscriptions/{subscription}", {}, 1, "")],
    "lookupPlayer": [("/players", {}, 1, "")],
    "showPlayer": [("/players/Steve", {}, 2, "the name is looked up, then the player and its payments")],
    "listBans": [("/bans", {}, 1, "")],
    "getServers": [("/servers", {}, 1, "")],
    "getServer": [("/servers/1", {}, 1, "")],
    "getPlayerQueue": [
        ("/queue", {}, 1, ""),
        ("/queue", {"player": "Steve"}, 2, "the name is looked up, then its queued commands"),
    ],
    "getWebhooks": [("/webhooks", {}, 1, "")],
    "getWebhook": [("/webhooks/{endpoint}", {}, 1, "")],
    "getWebhookDelivery": [("/webhooks/deliveries/{delivery}", {}, 1, "")],
    "getMail": [("/mail", {}, 1, "")],
    "getMailTemplate": [("/mail/templates/receipt", {}, 1, "")],
    "getDiscord": [("/discord", {}, 1, "")],
    "getShopTemplates": [("/shop", {}, 1, "")],
    "getShopTemplateEditor": [("/shop/editor", {"name": "index.html"}, 1, "")],
    "exportShopTheme": [("/shop/theme", {}, 1, "")],
    "getShopLook": [("/shop/look", {}, 1, "")],
    "getShopTranslations": [("/shop/translations", {}, 1, "")],
}


def _pages() -> list[Operation]:
    return [op for op in operations(Interface.ADMIN) if op.route.method == "GET"]


@pytest.fixture
def counter(demo: DemoStore) -> Iterator[CallCounter]:
    found = CallCounter()
    found.count_parallel_reads()
    client = get_services().table.client
    found.hook(client)
    yield found
    found.unhook(client)
    found.stop_counting_parallel_reads()


@pytest.fixture
def seeded(demo: DemoStore) -> dict[str, str]:
    """A payment of Steve, a subscription, a webhook endpoint with a failed delivery."""
    use_clock(datetime.now(UTC).replace(microsecond=0))
    services = get_services()
    now = services.now()
    payment = pay("round-trips-payment")
    subscription = pay("round-trips-vip", package_id=1, price="4.99")
    endpoint = panel_webhooks.add_endpoint(
        services, 1, "https://hooks.example.com/round-trips", [], actor="test", now=now
    )
    repo = WebhookRepository(services.table, services.secrets)
    claim = repo.claim(
        1, EVENT_ID, "payment.completed", endpoint.endpoint_id, timedelta(seconds=30), now, subject={"n": 1}
    )
    outcome = AttemptOutcome(attempt=1, at=now, success=False, status_code=503, latency_ms=40, excerpt="down")
    failure = Failure(at=now, url="https://hooks.example.com/round-trips", error="HTTP 503")
    repo.release(1, EVENT_ID, endpoint.endpoint_id, claim.token, failure, outcome)
    return {
        "payment": payment.transaction_id,
        "subscription": subscription.transaction_id,
        "endpoint": str(endpoint.endpoint_id),
        "delivery": f"{endpoint.endpoint_id}-{EVENT_ID}",
    }


def test_every_panel_page_has_its_expected_round_trips_in_the_table() -> None:
    assert sorted(op.route.operation_id for op in _pages()) == sorted(PAGES)


def test_each_panel_page_costs_the_round_trips_its_row_says(
    seeded: dict[str, str], counter: CallCounter
) -> None:
    owner = signed_in(Role.OWNER)
    measured: dict[str, list[tuple[str, int, int, str]]] = {}
    for op in _pages():
        handler: Any = op.endpoint.__globals__["handler"]
        for template, query, _, _ in PAGES[op.route.operation_id]:
            path = template.format(**seeded)
            counter.reset()
            response = PanelClient.get(owner, handler, path, query or None)
            assert response.status in (200, 303), (path, response.status, response.body[:300])
            measured.setdefault(op.route.operation_id, []).append(
                (path, counter.rounds, response.status, ",".join(counter.calls))
            )
    expected = {
        op_id: [(t.format(**seeded), trips) for t, _, trips, _ in rows] for op_id, rows in PAGES.items()
    }
    assert {k: [(p, trips) for p, trips, _, _ in v] for k, v in measured.items()} == expected, measured


def test_a_page_two_round_trips_deep_says_why() -> None:
    for op_id, rows in PAGES.items():
        for path, _, trips, why in rows:
            assert (trips > 1) == bool(why), (op_id, path)
