"""Manage-subscription scenarios for scripts/bench_round_trips.py: the player's manage page
(show, cancel, undo), the operator's recurring-payment routes, and a tier upgrade charged
off-session (a rare, money-moving path: docs/subscriptions.md)."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from decimal import Decimal
from typing import Any
from urllib.parse import urlencode, urlsplit

from functions.operator import cancel_recurring_payment, get_recurring_payment
from functions.storefront import get_subscription_page, submit_subscription_page, update_tier
from webstore.checkout.gateway import SANDBOX_SAVED_CARD
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import fulfil
from webstore.repo.recurring_payments import RecurringPaymentRepository
from webstore.services import get_services
from webstore.subscriptions import manage_links

ACCOUNT = 1


def _buy(name: str) -> str:
    """VIP bought now by `name` with a saved card; its recurring payment's reference."""
    payment = fulfil(
        get_services(),
        Order(
            account_id=ACCOUNT,
            idempotency_key=f"bench-manage-{name}",
            username=name,
            lines=[OrderLine(package_id=1, paid_price=Decimal("4.99"))],
            price_paid=Decimal("4.99"),
            currency="USD",
            saved_method=SANDBOX_SAVED_CARD,
        ),
    )
    assert payment.recurring_payment_reference
    return payment.recurring_payment_reference


def setup(ctx: dict[str, Any]) -> None:
    services = get_services()
    demo = ctx["demo"]
    raw = f"{demo.public_token}:{demo.checkout_api_key}".encode()
    ctx["manage_basic"] = {"authorization": "Basic " + base64.b64encode(raw).decode()}
    ctx["manage_base"] = f"/api/accounts/{demo.public_token}"
    ctx["manage_secret"] = {"X-Tebex-Secret": demo.server_secrets[1]}
    page_ref, operator_ref, upgrade_ref = _buy("BenchPage"), _buy("BenchOperator"), _buy("BenchUpgrade")
    ctx["manage_page_ref"], ctx["manage_operator_ref"] = page_ref, operator_ref
    upgrading = RecurringPaymentRepository(services.table).get(ACCOUNT, upgrade_ref)
    assert upgrading is not None
    ctx["manage_upgrade_tier"] = upgrading.tier_ids[0]


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    services = get_services()
    box, ref = services.secrets, ctx["manage_page_ref"]
    path = urlsplit(manage_links.manage_url("", box, ACCOUNT, ref)).path
    form = {"content-type": "application/x-www-form-urlencoded"}

    def posted(action: str) -> dict[str, Any]:
        token = manage_links.form_token(box, ACCOUNT, ref, action, services.now())
        return {"raw_body": urlencode({"action": action, "form_token": token}), "headers": form}

    yield "manage page (GET)", get_subscription_page.handler, "GET", path, {}
    yield "manage page (POST cancel)", submit_subscription_page.handler, "POST", path, posted("cancel")
    yield "manage page (POST undo)", submit_subscription_page.handler, "POST", path, posted("undo")
    operator_path = f"/recurring-payments/{ctx['manage_operator_ref']}"
    secret = {"headers": ctx["manage_secret"]}
    yield "getRecurringPayment", get_recurring_payment.handler, "GET", operator_path, secret
    yield "cancelRecurringPayment", cancel_recurring_payment.handler, "DELETE", operator_path, secret
    yield (
        "updateTier (upgrade, charged)",
        update_tier.handler,
        "PATCH",
        f"{ctx['manage_base']}/tiers/{ctx['manage_upgrade_tier']}",
        {"body": {"package_id": 2}, "headers": ctx["manage_basic"]},
    )
