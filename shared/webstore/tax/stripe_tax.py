"""The Stripe Tax adapter (official `stripe` library): calculation, transaction, reversal,
registrations. The store's own Stripe account decides the tax from its registrations.

- `quote`: `POST /v1/tax/calculations` for the basket's line amounts (minor units, the store's
  tax behaviour, the buyer's billing address and VAT ID); one tax per line as Stripe answers it
  (`line_items.data[].amount_tax`, its rate from the line's `tax_breakdown`). The calculation's
  id stays with the basket and the payment: the checkout charges what it showed.
- `record`: after the charge, `POST /v1/tax/transactions/create_from_calculation`, so Stripe's
  tax reports hold the sale (reference = the payment's transaction id).
- `reverse`: on a refund, `POST /v1/tax/transactions/create_reversal`, full, or partial by a
  flat amount (the refunded amount, tax included, as Stripe's `flat_amount` asks).
- `registrations`: `GET /v1/tax/registrations`, shown read-only in the panel.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from webstore.catalog import Tax, TaxCalculation
from webstore.money import ZERO
from webstore.tax.model import LineTax, TaxQuote

if TYPE_CHECKING:
    from stripe import StripeClient

# Stripe's product tax code for digital goods sold to be used online ("General - Electronically
# Supplied Services"): what a game store's ranks and items are.
TAX_CODE = "txcd_10000000"


def _plain(obj: Any) -> dict[str, Any]:
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj or {})


@dataclass(frozen=True)
class Registration:
    id: str
    country: str
    state: str
    status: str  # active | scheduled | expired
    active_from: int
    expires_at: int | None


class StripeTax:
    """Stripe Tax in the store's account; `client` is the account's (StripeGateway.client)."""

    def __init__(self, client: StripeClient) -> None:
        self._client = client

    def quote(
        self,
        settings: Tax,
        amounts: Sequence[Decimal],
        *,
        currency: str,
        country: str,
        postal_code: str = "",
        vat_id: str = "",
        references: Sequence[str] = (),
    ) -> TaxQuote:
        from webstore.checkout.stripe_gateway import from_minor_units, to_minor_units

        behaviour = "inclusive" if settings.inclusive else "exclusive"
        address: dict[str, str] = {"country": country}
        if postal_code:
            address["postal_code"] = postal_code
        customer: dict[str, Any] = {"address": address, "address_source": "billing"}
        if vat_id:
            customer["tax_ids"] = [{"type": "eu_vat", "value": vat_id}]
        params: dict[str, Any] = {
            "currency": currency.lower(),
            "customer_details": customer,
            "line_items": [
                {
                    "amount": to_minor_units(amount, currency),
                    "reference": references[i] if i < len(references) else f"line-{i + 1}",
                    "tax_behavior": behaviour,
                    "tax_code": TAX_CODE,
                }
                for i, amount in enumerate(amounts)
            ],
            "expand": ["line_items.data.tax_breakdown"],
        }
        found = _plain(self._client.v1.tax.calculations.create(params=params))  # type: ignore[arg-type]
        lines: list[LineTax] = []
        reverse = False
        items = (found.get("line_items") or {}).get("data") or []
        for amount, item in zip(amounts, items, strict=True):
            tax = from_minor_units(int(item.get("amount_tax") or 0), currency)
            breakdown = item.get("tax_breakdown") or []
            rate = sum(
                (
                    Decimal(str((b.get("tax_rate_details") or {}).get("percentage_decimal") or "0"))
                    for b in breakdown
                ),
                start=ZERO,
            )
            line_reverse = any(b.get("taxability_reason") == "reverse_charge" for b in breakdown)
            reverse = reverse or line_reverse
            net, gross = (amount - tax, amount) if settings.inclusive else (amount, amount + tax)
            lines.append(LineTax(net=net, rate=rate, tax=tax, gross=gross, reverse_charge=line_reverse))
        return TaxQuote(
            calculation=TaxCalculation.STRIPE_TAX,
            inclusive=settings.inclusive,
            country=country,
            postal_code=postal_code,
            amounts=list(amounts),
            lines=lines,
            reverse_charge=reverse,
            stripe_calculation_id=str(found["id"]),
        )

    def record(self, calculation_id: str, reference: str, attempt: str = "") -> str:
        """The tax transaction of a paid calculation (idempotent per reference). A retry after a
        failure names its `attempt`: Stripe answers a key it saw with the same (failed) answer,
        while the reference, unique per transaction at Stripe, still keeps it to one."""
        created = self._client.v1.tax.transactions.create_from_calculation(
            params={"calculation": calculation_id, "reference": reference},
            options={"idempotency_key": f"taxtxn-{reference}{'-' + attempt if attempt else ''}"},
        )
        return str(_plain(created)["id"])

    def reverse(
        self, transaction_id: str, reference: str, *, amount: Decimal | None = None, currency: str = ""
    ) -> str:
        """Reverse a tax transaction: all of it (`amount` None), or the part a partial refund of
        `amount` (tax included) gives back. `reference`: unique per refund."""
        from webstore.checkout.stripe_gateway import to_minor_units

        params: dict[str, Any] = {"original_transaction": transaction_id, "reference": reference}
        if amount is None:
            params["mode"] = "full"
        else:
            params["mode"] = "partial"
            params["flat_amount"] = -to_minor_units(amount, currency)
        created = self._client.v1.tax.transactions.create_reversal(
            params=params,  # type: ignore[arg-type]
            options={"idempotency_key": f"taxrev-{reference}"},
        )
        return str(_plain(created)["id"])

    def registrations(self) -> list[Registration]:
        found = _plain(self._client.v1.tax.registrations.list(params={"limit": 100}))
        return [
            Registration(
                id=str(r.get("id")),
                country=str(r.get("country") or ""),
                state=str(((r.get("country_options") or {}).get("us") or {}).get("state") or ""),
                status=str(r.get("status") or ""),
                active_from=int(r.get("active_from") or 0),
                expires_at=int(r["expires_at"]) if r.get("expires_at") else None,
            )
            for r in found.get("data") or []
        ]
