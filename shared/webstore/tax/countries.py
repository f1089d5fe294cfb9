"""The countries the checkout's billing-country list offers (ISO 3166-1 alpha-2 → English name)."""

from __future__ import annotations

COUNTRIES: dict[str, str] = {
    "AR": "Argentina", "AT": "Austria", "AU": "Australia", "BE": "Belgium", "BG": "Bulgaria",
    "BR": "Brazil", "CA": "Canada", "CH": "Switzerland", "CL": "Chile", "CN": "China", "CO": "Colombia",
    "CY": "Cyprus", "CZ": "Czechia", "DE": "Germany", "DK": "Denmark", "EE": "Estonia", "EG": "Egypt",
    "ES": "Spain", "FI": "Finland", "FR": "France", "GB": "United Kingdom", "GR": "Greece",
    "HK": "Hong Kong", "HR": "Croatia", "HU": "Hungary", "ID": "Indonesia", "IE": "Ireland",
    "IL": "Israel", "IN": "India", "IS": "Iceland", "IT": "Italy", "JP": "Japan", "KR": "South Korea",
    "LI": "Liechtenstein", "LT": "Lithuania", "LU": "Luxembourg", "LV": "Latvia", "MA": "Morocco",
    "MT": "Malta", "MX": "Mexico", "MY": "Malaysia", "NG": "Nigeria", "NL": "Netherlands",
    "NO": "Norway", "NZ": "New Zealand", "PE": "Peru", "PH": "Philippines", "PL": "Poland",
    "PT": "Portugal", "RO": "Romania", "RS": "Serbia", "SA": "Saudi Arabia", "SE": "Sweden",
    "SG": "Singapore", "SI": "Slovenia", "SK": "Slovakia", "TH": "Thailand", "TR": "Türkiye",
    "TW": "Taiwan", "UA": "Ukraine", "AE": "United Arab Emirates", "US": "United States",
    "VN": "Vietnam", "ZA": "South Africa",
}  # fmt: skip

# Where Stripe Tax needs a postal code to find the jurisdiction (state, province).
POSTAL_CODE_NEEDED = frozenset({"US", "CA"})
