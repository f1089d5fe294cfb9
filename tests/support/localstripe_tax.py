"""Stripe Tax for localstripe, which has none: the endpoints the adapter (webstore.tax.
stripe_tax) calls, with Stripe's documented request and response shapes, in memory.

- `POST /v1/tax/registrations` (country, `country_options[us][state]`, active_from) and
  `GET /v1/tax/registrations`: the account's registrations. Tax is collected only where one is
  active (else `taxability_reason: not_collecting`, 0), as Stripe Tax does.
- `POST /v1/tax/calculations`: `currency`, `line_items[n][amount|reference|tax_behavior|tax_code]`,
  `customer_details[address][country|postal_code]`, `customer_details[tax_ids][n][type|value]`.
  Answers a `tax.calculation` (`taxcalc_…`) with `amount_total`, `tax_amount_exclusive`,
  `tax_amount_inclusive`, `tax_breakdown` and `line_items.data[]` (`amount`, `amount_tax`,
  `tax_behavior`, `tax_breakdown[].tax_rate_details.percentage_decimal`, `taxability_reason`).
  Rates: the EU's standard VAT rates (one EU registration, type `oss_union`, covers the union);
  US states by the postal code's first digits (a small table: Washington 98xxx taxes 10.25%,
  New York 10xxx 8.875%, Oregon 97xxx has no sales tax). Tax is rounded per line, half up.
  An `eu_vat` tax id of another EU country than the head office (`DE`) is reverse charge.
- `POST /v1/tax/transactions/create_from_calculation` (calculation, reference) and
  `POST /v1/tax/transactions/create_reversal` (original_transaction, reference, mode full |
  partial with `flat_amount`): `tax.transaction` objects (`tax_…`, type transaction | reversal).
- `GET /v1/tax/transactions/{id}`.
A reference is unique per transaction (Stripe refuses a second; so here).

For the tests' failures on demand (not Stripe's): `POST /_test/tax/transactions_failing` with
`on=1` makes every `create_from_calculation` answer 500 `api_error` (Stripe out of order) until
`on=0`. For the tests' look at what Stripe's tax reports would hold (Stripe has no list of
transactions): `GET /_test/tax/transactions?reference=PREFIX`, the transactions and reversals
whose reference starts with PREFIX.
"""

from __future__ import annotations

import secrets
import time
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from aiohttp import web

from webstore.tax.rates import EU_STANDARD_RATES

HEAD_OFFICE = "DE"
US_STATES = {"98": ("WA", Decimal("10.25")), "10": ("NY", Decimal("8.875")), "97": ("OR", Decimal("0"))}

_registrations: list[dict[str, Any]] = []
_calculations: dict[str, dict[str, Any]] = {}
_transactions: dict[str, dict[str, Any]] = {}
_references: set[str] = set()
_failing = {"transactions": False}


def _error(message: str, status: int = 400) -> web.Response:
    return web.json_response({"error": {"message": message, "type": "invalid_request_error"}}, status=status)


def _indexed(data: Any, prefix: str) -> list[dict[str, str]]:
    """`line_items[0][amount]=…` form fields as a list of dicts."""
    rows: dict[int, dict[str, str]] = {}
    for key, value in data.items():
        if not key.startswith(prefix + "["):
            continue
        rest = key[len(prefix) + 1 :]
        index, _, field = rest.partition("][")
        rows.setdefault(int(index), {})[field.rstrip("]")] = value
    return [rows[i] for i in sorted(rows)]


async def create_registration(request: web.Request) -> web.StreamResponse:
    data = await request.post()
    if not data.get("country"):
        return _error("Missing required param: country.")
    registration = {
        "id": f"taxreg_{secrets.token_hex(8)}",
        "object": "tax.registration",
        "country": data["country"],
        "country_options": {
            "us": {"state": data.get("country_options[us][state]"), "type": "state_sales_tax"}
        }
        if data["country"] == "US"
        else {data["country"].lower(): {"type": data.get("type", "oss_union")}},
        "active_from": int(data.get("active_from") or time.time()),
        "expires_at": None,
        "status": "active",
        "livemode": False,
    }
    _registrations.append(registration)
    return web.json_response(registration)


async def list_registrations(request: web.Request) -> web.StreamResponse:
    return web.json_response(
        {"object": "list", "data": _registrations, "has_more": False, "url": "/v1/tax/registrations"}
    )


def _registered(country: str, state: str) -> bool:
    for r in _registrations:
        if r["status"] != "active":
            continue
        if country in EU_STANDARD_RATES and r["country"] in EU_STANDARD_RATES:
            return True  # one OSS registration covers the union
        if r["country"] == country and (country != "US" or r["country_options"]["us"]["state"] == state):
            return True
    return False


def _rate(country: str, postal_code: str, tax_ids: list[dict[str, str]]) -> tuple[Decimal, str, str, str]:
    """(percent, taxability_reason, state, tax_type) for a buyer."""
    state = ""
    if country == "US":
        state, rate = US_STATES.get(postal_code[:2], ("", Decimal(0)))
        kind = "sales_tax"
    else:
        rate, kind = EU_STANDARD_RATES.get(country, Decimal(0)), "vat"
    if not _registered(country, state):
        return Decimal(0), "not_collecting", state, kind
    vat = next((t["value"] for t in tax_ids if t.get("type") == "eu_vat"), "")
    if (
        vat
        and country in EU_STANDARD_RATES
        and country != HEAD_OFFICE
        and vat[:2].replace("EL", "GR") == country
    ):
        return Decimal(0), "reverse_charge", state, kind
    if rate == 0:
        return Decimal(0), "not_subject_to_tax", state, kind
    return rate, "standard_rated", state, kind


def _tax(amount: int, rate: Decimal, inclusive: bool) -> int:
    exact = Decimal(amount) * rate / (100 + rate) if inclusive else Decimal(amount) * rate / 100
    return int(exact.quantize(Decimal(1), rounding=ROUND_HALF_UP))


async def create_calculation(request: web.Request) -> web.StreamResponse:
    data = await request.post()
    currency = data.get("currency")
    items = _indexed(data, "line_items")
    country = data.get("customer_details[address][country]", "")
    if not currency or not items:
        return _error("Missing required param: currency or line_items.")
    if not country:
        return _error("customer_details[address][country] is required.")
    postal = data.get("customer_details[address][postal_code]", "")
    if country in ("US", "CA") and not postal:
        return _error("customer_details[address][postal_code] is required for US and CA addresses.")
    tax_ids = _indexed(data, "customer_details[tax_ids]")
    rate, reason, state, kind = _rate(country, postal, tax_ids)
    lines = []
    for n, item in enumerate(items):
        amount = int(item["amount"])
        inclusive = item.get("tax_behavior") == "inclusive"
        tax = _tax(amount, rate, inclusive)
        lines.append(
            {
                "id": f"tax_li_{secrets.token_hex(6)}_{n}",
                "object": "tax.calculation_line_item",
                "amount": amount,
                "amount_tax": tax,
                "quantity": 1,
                "reference": item.get("reference"),
                "tax_behavior": item.get("tax_behavior", "exclusive"),
                "tax_code": item.get("tax_code", "txcd_10000000"),
                "tax_breakdown": [
                    {
                        "amount": tax,
                        "jurisdiction": {
                            "country": country,
                            "state": state or None,
                            "level": "state" if state else "country",
                        },
                        "sourcing": "destination",
                        "taxability_reason": reason,
                        "taxable_amount": amount - (tax if inclusive else 0)
                        if reason == "standard_rated"
                        else 0,
                        "tax_rate_details": {
                            "display_name": "VAT" if kind == "vat" else "Sales Tax",
                            "percentage_decimal": format(rate, "f"),
                            "tax_type": kind,
                        },
                    }
                ],
            }
        )
    exclusive_tax = sum(li["amount_tax"] for li in lines if li["tax_behavior"] == "exclusive")
    inclusive_tax = sum(li["amount_tax"] for li in lines if li["tax_behavior"] == "inclusive")
    calculation = {
        "id": f"taxcalc_{secrets.token_hex(10)}",
        "object": "tax.calculation",
        "amount_total": sum(li["amount"] for li in lines) + exclusive_tax,
        "currency": currency,
        "customer_details": {
            "address": {"country": country, "postal_code": postal or None, "state": state or None},
            "address_source": "billing",
            "tax_ids": tax_ids,
            "taxability_override": "none",
        },
        "expires_at": int(time.time()) + 90 * 24 * 3600,
        "line_items": {"object": "list", "data": lines, "has_more": False},
        "livemode": False,
        "tax_amount_exclusive": exclusive_tax,
        "tax_amount_inclusive": inclusive_tax,
        "tax_breakdown": [
            {
                "amount": exclusive_tax + inclusive_tax,
                "inclusive": bool(inclusive_tax),
                "taxability_reason": reason,
                "tax_rate_details": {
                    "country": country,
                    "state": state or None,
                    "percentage_decimal": format(rate, "f"),
                    "tax_type": kind,
                },
                "taxable_amount": sum(li["amount"] for li in lines),
            }
        ],
        "tax_date": int(time.time()),
    }
    _calculations[calculation["id"]] = calculation
    return web.json_response(calculation)


def _reference(reference: str | None) -> web.Response | None:
    if not reference:
        return _error("Missing required param: reference.")
    if reference in _references:
        return _error(f"A transaction with reference {reference} already exists.")
    _references.add(reference)
    return None


async def transactions_failing(request: web.Request) -> web.StreamResponse:
    _failing["transactions"] = (await request.post()).get("on") == "1"
    return web.json_response({"failing": _failing["transactions"]})


async def create_from_calculation(request: web.Request) -> web.StreamResponse:
    data = await request.post()
    if _failing["transactions"]:
        return web.json_response(
            {"error": {"message": "An error occurred with our connection to Stripe.", "type": "api_error"}},
            status=500,
        )
    calculation = _calculations.get(data.get("calculation", ""))
    if calculation is None:
        return _error("No such calculation", 404)
    refused = _reference(data.get("reference"))
    if refused:
        return refused
    transaction = {
        "id": f"tax_{secrets.token_hex(10)}",
        "object": "tax.transaction",
        "type": "transaction",
        "reference": data["reference"],
        "currency": calculation["currency"],
        "customer_details": calculation["customer_details"],
        "line_items": {"object": "list", "data": calculation["line_items"]["data"], "has_more": False},
        "reversal": None,
        "tax_date": calculation["tax_date"],
        "livemode": False,
        "amount_total": calculation["amount_total"],
        "tax_amount": calculation["tax_amount_exclusive"] + calculation["tax_amount_inclusive"],
    }
    _transactions[transaction["id"]] = transaction
    return web.json_response(transaction)


async def create_reversal(request: web.Request) -> web.StreamResponse:
    data = await request.post()
    original = _transactions.get(data.get("original_transaction", ""))
    if original is None or original["type"] != "transaction":
        return _error("No such transaction", 404)
    mode = data.get("mode")
    if mode not in ("full", "partial"):
        return _error("mode must be full or partial.")
    if mode == "partial" and "flat_amount" not in data:
        return _error("A partial reversal needs line_items or flat_amount.")
    reversed_so_far = sum(
        t["amount_total"]
        for t in _transactions.values()
        if (t["reversal"] or {}).get("original_transaction") == original["id"]
    )
    amount = -original["amount_total"] if mode == "full" else int(data["flat_amount"])
    if amount >= 0 or -(amount + reversed_so_far) > original["amount_total"]:
        return _error("The reversal exceeds what is left of the original transaction.")
    refused = _reference(data.get("reference"))
    if refused:
        return refused
    share = Decimal(-amount) / Decimal(original["amount_total"]) if original["amount_total"] else Decimal(0)
    tax = -int((original["tax_amount"] * share).quantize(Decimal(1), rounding=ROUND_HALF_UP))
    reversal = {
        **original,
        "id": f"tax_{secrets.token_hex(10)}",
        "type": "reversal",
        "reference": data["reference"],
        "reversal": {"original_transaction": original["id"]},
        "amount_total": amount,
        "tax_amount": tax,
    }
    _transactions[reversal["id"]] = reversal
    return web.json_response(reversal)


async def get_transaction(request: web.Request) -> web.StreamResponse:
    found = _transactions.get(request.match_info["id"])
    return web.json_response(found) if found else _error("No such transaction", 404)


async def transactions_of(request: web.Request) -> web.StreamResponse:
    """The tests' look at Stripe's tax reports (Stripe has no list of transactions): those whose
    reference starts with `?reference=` (their order as made)."""
    prefix = request.query.get("reference", "")
    found = [t for t in _transactions.values() if str(t["reference"]).startswith(prefix)]
    return web.json_response({"object": "list", "data": found, "has_more": False})


def install(app: web.Application) -> None:
    app.router.add_post("/v1/tax/registrations", create_registration)
    app.router.add_get("/v1/tax/registrations", list_registrations)
    app.router.add_post("/v1/tax/calculations", create_calculation)
    app.router.add_post("/v1/tax/transactions/create_from_calculation", create_from_calculation)
    app.router.add_post("/v1/tax/transactions/create_reversal", create_reversal)
    app.router.add_get("/v1/tax/transactions/{id}", get_transaction)
    app.router.add_post("/_test/tax/transactions_failing", transactions_failing)
    app.router.add_get("/_test/tax/transactions", transactions_of)
