"""Hosted checkout scenarios for scripts/bench_round_trips.py: the page, a decline, a payment."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

from functions.storefront import get_checkout_page, get_checkout_receipt, pay_checkout
from webstore.services import get_services
from webstore.storefront import baskets

FORM = {"content-type": "application/x-www-form-urlencoded"}


def basket_with(token: str, package_id: int) -> str:
    """A new basket of the store `token` holding one of `package_id` (BenchBuyer's)."""
    services = get_services()
    basket = baskets.create_basket(services, token, baskets.NewBasket(username="BenchBuyer"), "192.0.2.1")
    baskets.add_package(services, None, basket.ident, baskets.AddPackage(package_id=package_id, quantity=1))
    return basket.ident


def setup(ctx: dict[str, Any]) -> None:
    token = ctx["demo"].public_token
    ctx["checkout_item"] = basket_with(token, 10)
    ctx["checkout_declined"] = basket_with(token, 10)
    ctx["checkout_rank"] = basket_with(token, 1)


def _pay(ident: str, key: str, card: str = "4242424242424242") -> dict[str, Any]:
    # The subscription consent is ticked (a basket without a subscription ignores it).
    # amount_due: the form's hidden field (the amount it showed); a bound no price here reaches.
    fields = {"attempt_key": key, "card_number": card, "subscription_consent": "yes", "amount_due": "1000.00"}
    return {"raw_body": urlencode(fields), "headers": FORM}


def scenarios(ctx: dict[str, Any]) -> Iterator[tuple[str, Any, str, str, dict[str, Any]]]:
    item, declined, rank = ctx["checkout_item"], ctx["checkout_declined"], ctx["checkout_rank"]
    yield "checkout page", get_checkout_page.handler, "GET", f"/checkout/{item}", {}
    yield (
        "pay (declined card)",
        pay_checkout.handler,
        "POST",
        f"/checkout/{declined}/pay",
        _pay(declined, "bench-declined-attempt-0001", "4000000000000002"),
    )
    yield (
        "pay (item, 2 commands)",
        pay_checkout.handler,
        "POST",
        f"/checkout/{item}/pay",
        _pay(item, "bench-item-attempt-0001"),
    )
    yield (
        "pay again (same attempt)",
        pay_checkout.handler,
        "POST",
        f"/checkout/{item}/pay",
        _pay(item, "bench-item-attempt-0001"),
    )
    yield (
        "pay (tiered subscription)",
        pay_checkout.handler,
        "POST",
        f"/checkout/{rank}/pay",
        _pay(rank, "bench-rank-attempt-0001"),
    )
    yield "receipt", get_checkout_receipt.handler, "GET", f"/checkout/{item}/receipt", {}
