"""The EU member states' standard VAT rates: the manual table's starting point.

Source: the European Commission's "VAT rates applied in the Member States of the European
Union" (taxation_customs, situation at 1 January 2026), the same standard rates Stripe publishes
for its EU tax registrations; changes since 2024 included (Finland 25.5% from 1 September 2024,
Slovakia 23% and Estonia 24% from 2025, Romania 21% from 1 August 2025). The owner edits the
table in the panel (Settings → Tax) or the catalog file; this module is only where it starts.
"""

from __future__ import annotations

from decimal import Decimal

SOURCE = "European Commission, VAT rates applied in the Member States of the EU, 1 January 2026"

EU_STANDARD_RATES: dict[str, Decimal] = {
    "AT": Decimal("20"), "BE": Decimal("21"), "BG": Decimal("20"), "CY": Decimal("19"),
    "CZ": Decimal("21"), "DE": Decimal("19"), "DK": Decimal("25"), "EE": Decimal("24"),
    "ES": Decimal("21"), "FI": Decimal("25.5"), "FR": Decimal("20"), "GR": Decimal("24"),
    "HR": Decimal("25"), "HU": Decimal("27"), "IE": Decimal("23"), "IT": Decimal("22"),
    "LT": Decimal("21"), "LU": Decimal("17"), "LV": Decimal("21"), "MT": Decimal("18"),
    "NL": Decimal("21"), "PL": Decimal("23"), "PT": Decimal("23"), "RO": Decimal("21"),
    "SE": Decimal("25"), "SI": Decimal("22"), "SK": Decimal("23"),
}  # fmt: skip

EU_COUNTRIES = frozenset(EU_STANDARD_RATES)
# Greece's VAT IDs start with EL, not its ISO code.
VAT_PREFIX = {country: ("EL" if country == "GR" else country) for country in EU_COUNTRIES}


def is_eu(country: str) -> bool:
    return country.upper() in EU_COUNTRIES
