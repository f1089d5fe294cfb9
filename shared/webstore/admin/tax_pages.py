"""Panel → Settings → Tax (`/settings/tax`): the store's tax mode, how prices are shown, the
seller's country, the manual rates by country (the EU's standard rates as the starting point)
and, for a Stripe Tax store, its registrations in Stripe, read-only (docs/tax-model.md).
Saving is one call into the catalog (the store section's `tax`, the rest kept), as the
settings page saves."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from webstore.admin import catalog as edits
from webstore.admin.catalog_pages import SECTIONS, revision_of
from webstore.admin.flow import PanelPage, done_at
from webstore.catalog import Store, Tax, TaxCalculation, TaxMode
from webstore.checkout.gateway_choice import stripe_of
from webstore.errors import DomainError, Invalid
from webstore.html import Markup, fragment
from webstore.repo import start_read
from webstore.repo.definitions import DefinitionRepository
from webstore.repo.store import StoreRepository
from webstore.services import Services
from webstore.tax.countries import COUNTRIES
from webstore.tax.rates import EU_STANDARD_RATES, SOURCE
from webstore.tax.stripe_tax import StripeTax

logger = logging.getLogger(__name__)
PATH = "/settings/tax"
_RATE_LINE = re.compile(r"^([A-Za-z]{2})\s*[:=]?\s*([0-9]+(?:\.[0-9]{1,4})?)\s*%?$")


@dataclass(frozen=True)
class RegistrationRow:
    country: str
    state: str
    status: str
    active_from: str


def rates_text(rates: dict[str, Decimal]) -> str:
    return "\n".join(f"{country} {format(rate.normalize(), 'f')}" for country, rate in sorted(rates.items()))


def parse_rates(text: str) -> dict[str, str]:
    """`FR 20` a line (or `FR: 20`, `FR=20%`) → {"FR": "20"}; a line that is not is refused."""
    rates: dict[str, str] = {}
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line:
            continue
        match = _RATE_LINE.match(line)
        if not match:
            raise Invalid(
                f"rates: line {n} ({line[:30]!r}) is not a country code and a rate, e.g. FR 20", field="rates"
            )
        rates[match.group(1).upper()] = match.group(2)
    return rates


def read_tax_form(form: dict[str, str]) -> dict[str, Any]:
    """The store's `tax` as the catalog file holds it, from the form (validated by the import)."""
    try:
        mode = TaxMode(form.get("mode", ""))
        calculation = TaxCalculation(form.get("calculation", ""))
    except ValueError:
        raise Invalid("mode and calculation: choose one of the options", field="mode") from None
    origin = form.get("origin_country", "").strip().upper()
    if origin and origin not in COUNTRIES:
        raise Invalid("origin_country: a two-letter country code from the list", field="origin_country")
    rate = form.get("rate", "0").strip() or "0"
    try:
        Decimal(rate)
    except InvalidOperation:
        raise Invalid("rate: a percentage, e.g. 20", field="rate") from None
    return {
        "mode": mode.value,
        "calculation": calculation.value,
        "rate": rate,
        "rates": parse_rates(form.get("rates", "")),
        "origin_country": origin or None,
        "reverse_charge": form.get("reverse_charge") == "on",
    }


def registrations(services: Services, store: Store) -> tuple[list[RegistrationRow], str]:
    """The store's Stripe Tax registrations (read-only), or why they cannot be shown."""
    if store.tax.calculation is not TaxCalculation.STRIPE_TAX:
        return [], ""
    gateway = stripe_of(services, store)
    if gateway is None:
        return [], "Stripe Tax needs the store's Stripe account: set its keys on the Go live page."
    try:
        found = StripeTax(gateway.client()).registrations()
    except Exception as error:  # Stripe unreachable or the key may not read them: say so, show the rest
        logger.warning("stripe tax: registrations not read: %s", getattr(error, "code", error))
        return [], "Stripe did not answer with the registrations; try again later."
    return [
        RegistrationRow(
            r.country, r.state, r.status, datetime.fromtimestamp(r.active_from, UTC).date().isoformat()
        )
        for r in found
    ], ""


def tax_page(
    services: Services,
    account_id: int,
    *,
    csrf: Markup,
    may_write: Callable[[], bool],
    typed: dict[str, str] | None = None,
    error: str = "",
    status: int = 200,
) -> PanelPage:
    """The store item and the revision, read together (one round trip); Stripe's registrations
    after them for a Stripe Tax store (not the table)."""
    revision_read = start_read(DefinitionRepository(services.table).revision, account_id)
    store = StoreRepository(services.table).store(account_id)
    revision = str(revision_read.result())
    can_write = may_write()
    tax: Tax = store.tax
    blank = dict.fromkeys(("mode", "calculation", "rate", "rates", "origin_country", "reverse_charge"), "")
    values = (
        {**blank, **typed}
        if typed
        else {
            "mode": tax.mode.value,
            "calculation": tax.calculation.value,
            "rate": format(tax.rate.normalize(), "f"),
            "rates": rates_text(tax.rates or EU_STANDARD_RATES),
            "origin_country": tax.origin_country or "",
            "reverse_charge": "on" if tax.reverse_charge else "",
        }
    )
    rows, registrations_note = registrations(services, store)
    body = fragment(
        "panel/settings/tax.html",
        sections=SECTIONS.values(),
        csrf=csrf,
        revision=revision,
        can_write=can_write,
        error=error,
        values=values,
        modes=[(m.value, label) for m, label in MODE_LABELS.items()],
        calculations=[(c.value, label) for c, label in CALCULATION_LABELS.items()],
        countries=sorted(COUNTRIES.items(), key=lambda item: item[1]),
        prefilled=not tax.rates,
        source=SOURCE,
        registrations=rows,
        registrations_note=registrations_note,
        stripe_tax=tax.calculation is TaxCalculation.STRIPE_TAX,
    )
    return PanelPage("Tax", body, "settings", status, store=store.name)


MODE_LABELS = {
    TaxMode.NONE: "No tax",
    TaxMode.EXCLUSIVE: "Prices exclude tax (added at checkout)",
    TaxMode.INCLUSIVE: "Prices include tax",
}
CALCULATION_LABELS = {
    TaxCalculation.FLAT: "One rate for every buyer",
    TaxCalculation.MANUAL: "My rates by the buyer's country",
    TaxCalculation.STRIPE_TAX: "Stripe Tax (0.5% of volume, from my registrations in Stripe)",
}


def save_tax_action(
    services: Services, account_id: int, form: dict[str, str], *, actor: str, now: datetime
) -> str:
    saved = edits.save_store_settings(
        services,
        account_id,
        {"tax": read_tax_form(form)},
        actor=actor,
        revision=revision_of(form),
        now=now,
        covers={"tax"},
    )
    unchanged = isinstance(saved, edits.Saved) and saved.unchanged
    return done_at(PATH, "No changes" if unchanged else "Saved")


def tax_again(
    services: Services, account_id: int, form: dict[str, str], error: DomainError, *, csrf: Markup
) -> PanelPage:
    typed = {k: v for k, v in form.items() if k not in ("csrf", "revision")}
    return tax_page(services, account_id, csrf=csrf, may_write=lambda: True, typed=typed, error=error.detail)
