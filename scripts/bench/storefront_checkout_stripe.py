"""Hosted checkout scenarios with Stripe for scripts/bench_round_trips.py: the player's return
from the Payment Element settles the payment, the webhook that follows finds it settled; and
the other order (the webhook first, the return after).

A second store (account 2: the demo catalog with Stripe keys) pays through localstripe
(tests/support/localstripe.py, on loopback, stopped when the script exits). Only the
DynamoDB calls are counted; Stripe's own calls are not round trips to the table."""

from __future__ import annotations

import atexit
import contextlib
import json
from collections.abc import Iterator
from typing import Any

from functions.storefront import get_checkout_page, get_checkout_return, stripe_webhook
from scripts.bench.storefront_checkout import basket_with
from tests.integration.stripe.test_stripe_webhook import event, intent_json, sign
from tests.support.demo import demo_catalog_data
from tests.support.lambda_events import LambdaContext, api_event
from tests.support.localstripe import (
    TEST_PUBLISHABLE_KEY,
    TEST_SECRET_KEY,
    TEST_WEBHOOK_SECRET,
    localstripe,
    pay_in_page,
)
from webstore.catalog_import import import_catalog, parse_catalog
from webstore.services import get_services

ACCOUNT = 2


def _paid_intent(token: str, api: str) -> tuple[str, str]:
    """A basket whose checkout page made a PaymentIntent, paid in the page: (ident, intent)."""
    ident = basket_with(token, 10)
    page = get_checkout_page.handler(api_event("GET", f"/checkout/{ident}"), LambdaContext())
    body = page["body"]
    start = body.index('data-client-secret="') + len('data-client-secret="')
    intent = body[start : body.index("_secret_", start)]
    assert pay_in_page(api, intent) == "succeeded", intent
    return ident, intent


def setup(ctx: dict[str, Any]) -> None:
    stack = contextlib.ExitStack()
    atexit.register(stack.close)
    api = stack.enter_context(localstripe())
    get_services().settings.stripe_api_base = api  # the services (and the counter's hooks) stay
    data = demo_catalog_data()
    data["store"]["id"] = ACCOUNT
    data["gateways"] = {
        "stripe": {
            "publishable_key": TEST_PUBLISHABLE_KEY,
            "secret_key": TEST_SECRET_KEY,
            "webhook_secret": TEST_WEBHOOK_SECRET,
        }
    }
    token = import_catalog(ctx["table"], parse_catalog(data)).public_token
    ctx["stripe_token"] = token
    ctx["stripe_return_first"] = _paid_intent(token, api)
    ctx["stripe_webhook_first"] = _paid_intent(token, api)
    ctx["stripe_webhooks"] = {
        intent: json.dumps(json.loads(event("payment_intent.succeeded", intent_json(api, intent))))
        for _, intent in (ctx["stripe_return_first"], ctx["stripe_webhook_first"])
    }


def _webhook(ctx: dict[str, Any], intent: str) -> dict[str, Any]:
    payload = ctx["stripe_webhooks"][intent]
    headers = {"content-type": "application/json", "stripe-signature": sign(payload)}
    return {"raw_body": payload, "headers": headers}


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    token = ctx["stripe_token"]
    hook = f"/webhooks/stripe/{token}"
    ident, intent = ctx["stripe_return_first"]
    back = {"query": {"payment_intent": intent}}
    returned = get_checkout_return.handler
    yield "pay (Stripe: the return settles)", returned, "GET", f"/checkout/{ident}/return", back
    yield "pay (Stripe: its webhook after)", stripe_webhook.handler, "POST", hook, _webhook(ctx, intent)
    ident, intent = ctx["stripe_webhook_first"]
    back = {"query": {"payment_intent": intent}}
    yield "pay (Stripe: the webhook settles)", stripe_webhook.handler, "POST", hook, _webhook(ctx, intent)
    yield "pay (Stripe: the return after)", returned, "GET", f"/checkout/{ident}/return", back
