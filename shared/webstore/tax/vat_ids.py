"""A business buyer's VAT ID: normalised, its format checked, and when reverse charge applies.

The format is checked here (country prefix and the member state's pattern); whether the number
is registered is for VIES or Stripe to say. Stripe Tax is given the ID (`customer_details.
tax_ids`) and answers reverse charge itself; the manual adapter relies on the format only and
records the ID as `unverified` (docs/tax-model.md).
"""

from __future__ import annotations

import re
from enum import StrEnum

from webstore.errors import Invalid
from webstore.tax.rates import VAT_PREFIX, is_eu

# The member states' VAT number shapes after the prefix (the Commission's VIES FAQ).
_PATTERNS: dict[str, str] = {
    "AT": r"U\d{8}", "BE": r"[01]\d{9}", "BG": r"\d{9,10}", "CY": r"\d{8}[A-Z]", "CZ": r"\d{8,10}",
    "DE": r"\d{9}", "DK": r"\d{8}", "EE": r"\d{9}", "EL": r"\d{9}", "ES": r"[A-Z0-9]\d{7}[A-Z0-9]",
    "FI": r"\d{8}", "FR": r"[A-HJ-NP-Z0-9]{2}\d{9}", "HR": r"\d{11}", "HU": r"\d{8}",
    "IE": r"\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W]", "IT": r"\d{11}", "LT": r"\d{9}|\d{12}",
    "LU": r"\d{8}", "LV": r"\d{11}", "MT": r"\d{8}", "NL": r"\d{9}B\d{2}", "PL": r"\d{10}",
    "PT": r"\d{9}", "RO": r"\d{2,10}", "SE": r"\d{12}", "SI": r"\d{8}", "SK": r"\d{10}",
}  # fmt: skip
_COUNTRY_OF_PREFIX = {prefix: country for country, prefix in VAT_PREFIX.items()}
MAX_LENGTH = 20


class VatIdStatus(StrEnum):
    NONE = ""  # no VAT ID given
    VALID = "valid"  # checked with the tax authority (through Stripe)
    INVALID = "invalid"  # Stripe said it is not registered
    UNVERIFIED = "unverified"  # well formed; not checked with the tax authority


def normalise(value: str) -> str:
    return re.sub(r"[\s.\-]", "", value).upper()


def parse(value: str, field: str = "vat_id") -> tuple[str, str]:
    """(normalised ID, its member state's ISO country) or Invalid naming what is wrong."""
    vat_id = normalise(value)
    if len(vat_id) > MAX_LENGTH or len(vat_id) < 4:
        raise Invalid(f"{field}: an EU VAT ID is 4 to {MAX_LENGTH} characters, e.g. DE123456789", field=field)
    prefix, number = vat_id[:2], vat_id[2:]
    country = _COUNTRY_OF_PREFIX.get(prefix)
    if country is None:
        raise Invalid(f"{field}: starts with an EU country code (e.g. DE, FR, EL)", field=field)
    if not re.fullmatch(_PATTERNS[prefix], number):
        raise Invalid(f"{field}: not the shape of a VAT ID of {country}", field=field)
    return vat_id, country


def reverse_charge(vat_country: str, buyer_country: str, origin_country: str | None, status: str) -> bool:
    """B2B across EU borders: the buyer (a business, VAT ID of the country they buy from)
    accounts for the VAT; the seller charges 0% and says so on the invoice."""
    return (
        status in (VatIdStatus.VALID, VatIdStatus.UNVERIFIED)
        and bool(origin_country)
        and is_eu(buyer_country)
        and is_eu(origin_country or "")
        and vat_country == buyer_country
        and buyer_country != origin_country
    )
