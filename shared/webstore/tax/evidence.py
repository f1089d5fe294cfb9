"""The buyer's country, decided from the evidence and kept with it.

The country taxed is the billing country the buyer gives at checkout; before that, the client
address's country; before that, the seller's own (`origin_country`, an estimate the checkout
replaces). The EU asks for two non-contradictory pieces of evidence for digital services: the
billing country, the client address's country and (after payment) the card's country are kept
on the payment, `agree` names those naming the country taxed, and `conflict` is set when fewer
than two do and another piece names another country: the owner sees it in the payment and can
ask the buyer (a VPN or a card from abroad is common; the checkout does not refuse for it).
"""

from __future__ import annotations

from webstore.tax.model import TaxEvidence

PIECES = ("billing_country", "ip_country", "card_country")


def country_taxed(billing_country: str, ip_country: str, origin_country: str | None) -> str:
    return billing_country or ip_country or (origin_country or "")


def decide(
    billing_country: str,
    ip_country: str,
    card_country: str = "",
    *,
    billing_postal_code: str = "",
    taxed: str | None = None,
) -> TaxEvidence:
    """The evidence as stored; `taxed` is the country the tax was charged for (the billing
    country, else the client address's, when not given)."""
    pieces = {"billing_country": billing_country, "ip_country": ip_country, "card_country": card_country}
    decided = taxed if taxed is not None else (billing_country or ip_country)
    agree = [name for name in PIECES if pieces[name] and pieces[name] == decided]
    other = any(value and value != decided for value in pieces.values())
    return TaxEvidence(
        billing_country=billing_country,
        billing_postal_code=billing_postal_code,
        ip_country=ip_country,
        card_country=card_country,
        decided=decided,
        agree=agree,
        conflict=len(agree) < 2 and other,
    )
