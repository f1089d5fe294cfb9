"""Paid checkouts over HTTP against a running local stack, as a shop and a player make them (the
basket API, then the hosted checkout page's form): for the soak, crash and load scripts
(scripts/soak_local.py, scripts/crash_local.py, scripts/load_local.py) and their e2e tests."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

PAYING_CARD = "4242424242424242"
HIDDEN = re.compile(r'<input type=hidden name=(\w+) value="([^"]*)">')


@dataclass
class Order:
    username: str
    packages: list[tuple[int, int]]  # (package id, quantity)
    coupon: str | None = None
    gift_card: str | None = None


@dataclass
class Checkout:
    ident: str
    fields: dict[str, str] = field(default_factory=dict)  # the page's hidden fields (attempt_key, amount_due)
    status: int | None = None  # the pay POST's answer (303: paid), None: no answer
    location: str = ""

    @property
    def paid(self) -> bool:
        return self.status == 303 and self.location.endswith("/receipt")


def urls(creds: dict[str, Any]) -> tuple[str, str]:
    """(headless_url, the storefront's root)."""
    base = str(creds["headless_url"])
    return base, base.split("/api/")[0]


def open_checkout(http: httpx.Client, creds: dict[str, Any], order: Order) -> Checkout:
    """A basket holding `order`, its coupon and gift card applied, and its checkout page read."""
    base, host = urls(creds)
    created = http.post(f"{base}/baskets", json={"username": order.username})
    created.raise_for_status()
    ident = str(created.json()["data"]["ident"])
    for package_id, quantity in order.packages:
        line = {"package_id": package_id, "quantity": quantity}
        http.post(f"{host}/api/baskets/{ident}/packages", json=line).raise_for_status()
    if order.coupon:
        http.post(f"{base}/baskets/{ident}/coupons", json={"coupon_code": order.coupon}).raise_for_status()
    if order.gift_card:
        card = {"card_number": order.gift_card}
        http.post(f"{base}/baskets/{ident}/giftcards", json=card).raise_for_status()
    page = http.get(f"{host}/checkout/{ident}")
    page.raise_for_status()
    return Checkout(ident, dict(HIDDEN.findall(page.text)))


def pay(http: httpx.Client, creds: dict[str, Any], checkout: Checkout) -> Checkout:
    """POST the checkout form (the sandbox's paying card, subscription consent ticked). A
    transport error (the server died) leaves `status` None; the same attempt may be paid again."""
    _, host = urls(creds)
    form = {**checkout.fields, "card_number": PAYING_CARD, "subscription_consent": "yes"}
    answer = http.post(f"{host}/checkout/{checkout.ident}/pay", data=form)
    checkout.status = answer.status_code
    checkout.location = answer.headers.get("location", "")
    return checkout


def new_gift_card(http: httpx.Client, creds: dict[str, Any], amount: str) -> str:
    answer = http.post(
        f"{creds['plugin_url']}/gift-cards",
        json={"amount": amount, "note": "soak"},
        headers={"X-Tebex-Secret": creds["server_secret"]},
    )
    answer.raise_for_status()
    return str(answer.json()["data"]["code"])


def all_payments(http: httpx.Client, creds: dict[str, Any]) -> list[dict[str, Any]]:
    """Every payment of the store (the operator API's pages of 25)."""
    found: list[dict[str, Any]] = []
    page = 1
    while True:
        answer = http.get(
            f"{creds['plugin_url']}/payments",
            params={"paged": 1, "page": page},
            headers={"X-Tebex-Secret": creds["server_secret"]},
        )
        answer.raise_for_status()
        body = answer.json()
        found.extend(body["data"])
        if page >= int(body["last_page"]):
            return found
        page += 1


def basket(http: httpx.Client, creds: dict[str, Any], ident: str) -> dict[str, Any]:
    base, _ = urls(creds)
    answer = http.get(f"{base}/baskets/{ident}")
    answer.raise_for_status()
    return dict(answer.json()["data"])


def rss_mb(pid: int) -> float:
    """The process's resident memory (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise LookupError(f"no VmRSS for process {pid}")


def wait_until_answering(creds: dict[str, Any], seconds: float = 120) -> None:
    """Until the storefront and the operator interface accept connections."""
    import time

    deadline = time.monotonic() + seconds
    for url in (str(creds["headless_url"]), f"{creds['plugin_url']}/"):
        while True:
            try:
                httpx.get(url, timeout=5)
                break
            except httpx.TransportError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{url} does not answer") from None
                time.sleep(0.1)
