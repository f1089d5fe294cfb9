"""The dashboard page through the real handler (moto): its round of reads, the range
selector, what a role sees, escaped player input, and one store's figures only."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

from functions.admin import get_dashboard
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.catalog_import import ImportResult
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil
from webstore.repo.webhooks import Failure, WebhookRepository
from webstore.services import get_services

XSS = '<script>alert("dashboard")</script>'


def pay(key: str, *, account: int = 1, name: str = "Steve", dynamic_name: str | None = None) -> str:
    lines = [OrderLine(package_id=10, paid_price=Decimal("2.50"))]
    if dynamic_name is not None:
        lines.append(
            OrderLine(package_id=999, paid_price=Decimal(1), dynamic=True, name=dynamic_name, category_id=2)
        )
    payment = fulfil(
        get_services(),
        Order(
            account_id=account,
            idempotency_key=key,
            username=name,
            lines=lines,
            price_paid=sum((line.paid_price for line in lines), Decimal(0)),
            currency="USD",
        ),
    )
    return payment.transaction_id


def fail_delivery(account: int, error: str) -> None:
    services = get_services()
    webhooks = WebhookRepository(services.table, services.secrets)
    now = services.now()
    claim = webhooks.claim(account, f"evt-{account}", "payment.completed", 1, timedelta(seconds=30), now)
    webhooks.release(
        account, f"evt-{account}", 1, claim.token, Failure(now, "https://hooks.example/x", error)
    )


def test_the_owner_sees_the_figures_charts_and_links(demo: DemoStore) -> None:
    txn = pay("page-1")
    fail_delivery(1, "HTTP 503")
    owner = signed_in(Role.OWNER)
    page = owner.get(get_dashboard.handler, "/")
    assert page.status == 200, page.body
    body = page.body
    assert "<h1>Demo Craft</h1>" in body and body.count("<svg") == 2
    assert '<strong aria-current="page">30 days</strong>' in body
    assert f'<a href="/payments/{txn}">{txn}</a>' in body
    assert "Diamond Sword" in body and "$2.50 USD" in body
    assert '<a href="/webhooks">' in body and "HTTP 503" in body
    week = owner.get(get_dashboard.handler, "/", {"days": "7"})
    assert week.status == 200 and '<strong aria-current="page">7 days</strong>' in week.body
    assert len(re.findall(r'<th scope="row">[0-9]{4}-[0-9]{2}-[0-9]{2}<', week.body)) == 7


def test_a_range_not_offered_is_refused_naming_days(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    refused = owner.get(get_dashboard.handler, "/", {"days": "14"})
    assert refused.status == 422 and "days is one of 7, 30, 90, 365" in refused.body


def test_without_a_session_the_dashboard_asks_to_sign_in(demo: DemoStore) -> None:
    anonymous = PanelClient().get(get_dashboard.handler, "/", {"days": "7"})
    assert anonymous.status == 303 and anonymous.headers["location"].startswith("/login")


def test_support_sees_no_webhook_deliveries(demo: DemoStore) -> None:
    pay("page-support")
    fail_delivery(1, "HTTP 503")
    page = signed_in(Role.SUPPORT).get(get_dashboard.handler, "/")
    assert page.status == 200, page.body
    assert "Recent payments" in page.body
    assert "Webhook deliveries failing" not in page.body and "HTTP 503" not in page.body
    assert 'href="/webhooks"' not in page.body


def test_what_players_and_receivers_sent_is_escaped(demo: DemoStore) -> None:
    pay("page-xss", dynamic_name=XSS)
    fail_delivery(1, XSS)
    body = signed_in(Role.OWNER).get(get_dashboard.handler, "/").body
    assert "<script>alert" not in body
    assert body.count("&lt;script&gt;alert(&#34;dashboard&#34;)&lt;/script&gt;") == 2


def test_an_owner_of_one_store_sees_nothing_of_another(demo: DemoStore, other_store: ImportResult) -> None:
    mine = pay("page-a")
    theirs = pay("page-b", account=2)
    fail_delivery(2, "only store 2 fails")
    body = signed_in(Role.OWNER, account_id=1).get(get_dashboard.handler, "/").body
    assert mine in body and theirs not in body and "only store 2 fails" not in body
    other = signed_in(Role.OWNER, account_id=2).get(get_dashboard.handler, "/").body
    assert theirs in other and mine not in other and "Other Craft" in other
