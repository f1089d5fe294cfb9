"""The tax port's pure parts: the manual adapter (a rate per country, one tax per line, rounded
per line), VAT IDs and reverse charge, the country evidence rule; and, as properties over random
baskets on every pricing path, that the shown lines and the tax add up to the total."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal as D

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.unit.test_pricing import NOW, ctx
from tests.unit.test_pricing_properties import cards, coupons, lines, sales
from webstore.basket_pricing import price_basket
from webstore.catalog import Tax, TaxCalculation, TaxMode
from webstore.errors import Invalid
from webstore.money import quantum
from webstore.pricing import prorate_price
from webstore.tax import manual, vat_ids
from webstore.tax.evidence import decide
from webstore.tax.rates import EU_STANDARD_RATES

EU = {k: v for k, v in EU_STANDARD_RATES.items()}


def settings_of(mode: TaxMode, **kw: object) -> Tax:
    return Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=EU, origin_country="DE", **kw)


def test_exclusive_lines_are_taxed_one_by_one_and_rounded_each() -> None:
    quote = manual.quote(settings_of(TaxMode.EXCLUSIVE), [D("4.99"), D("0.05")], country="FR", currency="EUR")
    assert [line.tax for line in quote.lines] == [D("1.00"), D("0.01")]  # 0.998 and 0.01
    assert [line.gross for line in quote.lines] == [D("5.99"), D("0.06")]
    assert quote.tax == D("1.01")


def test_inclusive_lines_hold_their_tax() -> None:
    quote = manual.quote(settings_of(TaxMode.INCLUSIVE), [D("5.00")], country="DE", currency="EUR")
    (only,) = quote.lines
    assert (only.net, only.tax, only.gross, only.rate) == (D("4.20"), D("0.80"), D("5.00"), D("19"))


def test_a_country_not_in_the_table_pays_nothing_and_none_mode_never_taxes() -> None:
    assert manual.quote(settings_of(TaxMode.EXCLUSIVE), [D("5")], country="US", currency="USD").tax == 0
    assert manual.quote(settings_of(TaxMode.NONE), [D("5")], country="FR", currency="EUR").tax == 0


def test_reverse_charge_is_zero_and_flagged() -> None:
    quote = manual.quote(
        settings_of(TaxMode.EXCLUSIVE), [D("5")], country="FR", currency="EUR", reverse_charge=True
    )
    assert quote.tax == 0 and quote.reverse_charge and quote.lines[0].reverse_charge


def test_vat_ids_are_normalised_and_their_shape_checked() -> None:
    assert vat_ids.parse("fr 40 303 265 045") == ("FR40303265045", "FR")
    assert vat_ids.parse("EL-123456789") == ("EL123456789", "GR")
    for bad in ("US123", "DE12345", "XX123456789", ""):
        with pytest.raises(Invalid):
            vat_ids.parse(bad)


def test_reverse_charge_only_across_eu_borders_with_the_buyers_own_id() -> None:
    unverified = vat_ids.VatIdStatus.UNVERIFIED
    assert vat_ids.reverse_charge("FR", "FR", "DE", unverified)
    assert not vat_ids.reverse_charge("DE", "DE", "DE", unverified)  # domestic: VAT charged
    assert not vat_ids.reverse_charge("FR", "DE", "DE", unverified)  # an ID of another country
    assert not vat_ids.reverse_charge("FR", "FR", "DE", vat_ids.VatIdStatus.INVALID)
    assert not vat_ids.reverse_charge("FR", "FR", None, unverified)  # no origin: never


def test_evidence_two_pieces_agreeing_or_a_conflict_flagged() -> None:
    agreed = decide("FR", "FR", "")
    assert (agreed.decided, agreed.agree, agreed.conflict) == ("FR", ["billing_country", "ip_country"], False)
    vpn = decide("FR", "NL", "FR")
    assert vpn.agree == ["billing_country", "card_country"] and not vpn.conflict
    alone = decide("FR", "NL", "")
    assert alone.conflict and alone.agree == ["billing_country"]
    only_one = decide("FR", "", "")
    assert not only_one.conflict  # nothing contradicts it


# --- properties -----------------------------------------------------------------------------

countries = st.sampled_from(["FR", "DE", "HU", "FI", "US", ""])
modes = st.sampled_from([TaxMode.NONE, TaxMode.EXCLUSIVE, TaxMode.INCLUSIVE])
currencies = st.sampled_from(["EUR", "JPY", "KWD"])


def _manual_taxes(tax: Tax, country: str, currency: str, reverse: bool):  # type: ignore[no-untyped-def]
    def taxes(amounts: list[D]) -> list[D]:
        quote = manual.quote(tax, amounts, country=country, currency=currency, reverse_charge=reverse)
        return [line.tax for line in quote.lines]

    return taxes


@settings(max_examples=400, deadline=None)
@given(lines, coupons, sales, cards, modes, countries, currencies, st.booleans())
def test_shown_lines_and_tax_make_the_total_for_every_mode(
    basket_lines: list,
    basket_coupons: list,
    active_sales: list,
    gift_cards: list,
    mode: TaxMode,
    country: str,
    currency: str,
    reverse: bool,
) -> None:
    """Coupons (all three methods), sales, gift cards, manual rates by country, inclusive and
    exclusive, reverse charge: lines shown + tax on top = total, tax per line to the unit."""
    tax = settings_of(mode)
    context = ctx(active_sales, mode=mode, currency=currency)
    context = type(context)(store=context.store.model_copy(update={"tax": tax}), sales=context.sales, now=NOW)
    price = price_basket(
        basket_lines,
        context,
        coupons=basket_coupons,
        giftcards=gift_cards,
        line_taxes=_manual_taxes(tax, country, currency, reverse),
    )
    shown = sum((lp.line_price for lp in price.lines), D(0))
    step = quantum(currency)
    assert price.sales_tax == sum(price.line_taxes, D(0))
    assert all(t == t.quantize(step) and t >= 0 for t in price.line_taxes)
    if mode is TaxMode.EXCLUSIVE:
        assert shown + price.sales_tax == price.total_price
    else:
        assert shown == price.total_price and price.sales_tax <= price.total_price
    if mode is TaxMode.NONE or reverse or country not in EU:
        assert price.sales_tax == 0
    assert price.amount_due == price.total_price - price.giftcard_amount >= 0
    # The payment's tax lines tell the same: net + tax = gross per line, gross sums to the total.
    quote = manual.quote(
        tax, [lp.line_price for lp in price.lines], country=country, currency=currency, reverse_charge=reverse
    )
    assert all(line.net + line.tax == line.gross for line in quote.lines)
    if mode is not TaxMode.NONE:
        assert sum((line.gross for line in quote.lines), D(0)) == price.total_price


amounts = st.decimals(min_value=D("0"), max_value=D("500"), places=2)


@settings(max_examples=300, deadline=None)
@given(amounts, amounts, st.integers(0, 30), modes, countries)
def test_a_prorated_upgrade_and_a_renewal_are_taxed_like_any_line(
    current: D, new: D, days_used: int, mode: TaxMode, country: str
) -> None:
    """Tier-upgrade proration and a renewal's amount: one line each, the same rule."""
    start = NOW - timedelta(days=days_used)
    due = prorate_price(
        current, new, now=NOW, period_start=start, period_end=start + timedelta(days=30), currency="EUR"
    )
    for amount in (due, new):
        (line,) = manual.quote(settings_of(mode), [amount], country=country, currency="EUR").lines
        assert line.net + line.tax == line.gross
        assert (line.gross if mode is TaxMode.INCLUSIVE else line.net) == amount
        assert 0 <= line.tax <= line.gross


# --- the basket keeps its quote ------------------------------------------------------------


def _taxed_basket(calculation: TaxCalculation, mode: TaxMode = TaxMode.EXCLUSIVE):  # type: ignore[no-untyped-def]
    from tests.unit.test_basket import basket, package, store
    from webstore.basket import BasketLine

    shop = store(tax=Tax(mode=mode, calculation=calculation, rates=EU, origin_country="DE"))
    taxed = basket()
    taxed.lines.append(BasketLine.of_package(package(10, "5.00")))
    return taxed, shop


def test_a_manual_basket_is_priced_for_the_origin_country_then_the_buyers() -> None:
    taxed, shop = _taxed_basket(TaxCalculation.MANUAL)
    taxed.reprice(shop, NOW)
    assert (taxed.sales_tax, taxed.total_price) == (D("0.95"), D("5.95"))  # DE, the seller's
    taxed.buyer_tax.billing_country = "HU"
    taxed.reprice(shop, NOW)
    assert (taxed.sales_tax, taxed.total_price) == (D("1.35"), D("6.35"))
    assert taxed.buyer_tax.quote is not None and taxed.buyer_tax.quote.country == "HU"
    assert not taxed.tax_pending(shop)


def test_a_stripe_quote_is_reused_while_it_fits_and_dropped_when_the_lines_change() -> None:
    from webstore.tax.model import LineTax, TaxQuote

    taxed, shop = _taxed_basket(TaxCalculation.STRIPE_TAX)
    taxed.buyer_tax.billing_country = "FR"
    taxed.reprice(shop, NOW)
    assert taxed.tax_pending(shop) and taxed.sales_tax == 0
    taxed.buyer_tax.quote = TaxQuote(
        calculation=TaxCalculation.STRIPE_TAX,
        inclusive=False,
        country="FR",
        amounts=[D("5.00")],
        lines=[LineTax(net=D("5.00"), rate=D("20"), tax=D("1.00"), gross=D("6.00"))],
        stripe_calculation_id="taxcalc_1",
    )
    taxed.reprice(shop, NOW)
    assert (taxed.sales_tax, taxed.total_price) == (D("1.00"), D("6.00")) and not taxed.tax_pending(shop)
    taxed.lines[0].quantity = 2  # the basket changed: the quote no longer answers for it
    taxed.reprice(shop, NOW)
    assert taxed.tax_pending(shop) and taxed.buyer_tax.quote is None


# --- renewals -------------------------------------------------------------------------------

first_taxes = st.builds(
    lambda country, vat: (country, vat),
    st.sampled_from(["FR", "DE", "HU", "US", ""]),
    st.sampled_from(["", "FR40303265045", "HU12345678"]),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(amounts, min_size=1, max_size=4), modes, first_taxes, currencies, st.booleans())
def test_a_renewal_is_priced_through_the_renewal_path_for_the_first_payments_buyer(
    line_amounts: list[D], mode: TaxMode, first: tuple[str, str], currency: str, table_changed: bool
) -> None:
    """What the processor charges (webstore.tax.renewal): the agreed amounts taxed for the
    first payment's country and VAT ID at the rates of the day; lines + tax on top = charged,
    inclusive charges exactly the agreed amount, the evidence is the first payment's."""
    from webstore.tax import renewal
    from webstore.tax.model import PaymentTax

    country, vat_id = first
    amounts_now = [a.quantize(quantum(currency)) for a in line_amounts]
    evidence = decide(country, country)
    first_tax = PaymentTax(
        calculation=TaxCalculation.MANUAL, inclusive=mode is TaxMode.INCLUSIVE, country=country,
        currency=currency, lines=[], net=D(0), tax=D(0), gross=D(0), vat_id=vat_id,
        vat_id_status="unverified" if vat_id else "", evidence=evidence,
    )  # fmt: skip
    rates_now = {**EU_STANDARD_RATES, **({"FR": D("21.5"), "HU": D("5")} if table_changed else {})}
    tax = Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=rates_now, origin_country="DE")
    buyer = renewal.buyer_of(first_tax if country else None, tax, "")
    assert buyer.country == (country or "DE")
    if renewal.untaxed(tax):
        assert renewal.charged(amounts_now, None) == sum(amounts_now, D(0))
        return
    paid = renewal.taxed_payment(renewal.manual_quote(tax, amounts_now, buyer, currency), buyer, currency)
    charged = renewal.charged(amounts_now, paid)
    assert all(line.net + line.tax == line.gross for line in paid.lines)
    assert paid.net + paid.tax == paid.gross
    assert all(t.tax == t.tax.quantize(quantum(currency)) and t.tax >= 0 for t in paid.lines)
    if mode is TaxMode.INCLUSIVE:
        assert charged == sum(amounts_now, D(0)) == paid.gross
    else:
        assert charged == sum(amounts_now, D(0)) + paid.tax == paid.gross
    reverse = bool(vat_id) and vat_id[:2] == country and country != "DE"
    assert paid.reverse_charge == reverse
    expected_rate = D(0) if reverse else rates_now.get(buyer.country, D(0))
    assert {line.rate for line in paid.lines} == {expected_rate}
    if country:  # a first payment without a country kept no buyer: nothing of it carries over
        assert paid.vat_id == vat_id and paid.evidence == evidence


@settings(max_examples=200, deadline=None)
@given(st.lists(amounts, min_size=1, max_size=4), modes, first_taxes, currencies)
def test_a_subscriptions_views_tell_the_charge_the_renewal_path_makes(
    line_amounts: list[D], mode: TaxMode, first: tuple[str, str], currency: str
) -> None:
    """The views' and the notice's charge (webstore.tax.renewal.expected_charge) is, with manual
    rates, what the renewal path charges for the same buyer and the tax in it, to the cent."""
    from webstore.tax import renewal
    from webstore.tax.model import PaymentTax

    country, vat_id = first
    amounts_now = [a.quantize(quantum(currency)) for a in line_amounts]
    first_tax = PaymentTax(
        calculation=TaxCalculation.MANUAL, inclusive=mode is TaxMode.INCLUSIVE, country=country,
        currency=currency, lines=[], net=D(0), tax=D(0), gross=D(0), vat_id=vat_id,
        vat_id_status="unverified" if vat_id else "",
    )  # fmt: skip
    tax = Tax(mode=mode, calculation=TaxCalculation.MANUAL, rates=EU_STANDARD_RATES, origin_country="DE")
    told = renewal.expected_charge(tax, amounts_now, currency, first=first_tax if country else None)
    buyer = renewal.buyer_of(first_tax if country else None, tax, "")
    paid = (
        None
        if renewal.untaxed(tax)
        else renewal.taxed_payment(renewal.manual_quote(tax, amounts_now, buyer, currency), buyer, currency)
    )
    assert told.amount == renewal.charged(amounts_now, paid)
    assert told.tax == (paid.tax if paid else D(0)) and not told.estimated


def test_a_stripe_tax_subscriptions_views_use_the_last_charges_rates() -> None:
    from webstore.tax import renewal
    from webstore.tax.model import LineTax, PaymentTax

    last = PaymentTax(
        calculation=TaxCalculation.STRIPE_TAX, inclusive=False, country="US", postal_code="98101",
        currency="USD", lines=[LineTax(net=D("4.99"), rate=D("10.25"), tax=D("0.51"), gross=D("5.50"))],
        net=D("4.99"), tax=D("0.51"), gross=D("5.50"),
    )  # fmt: skip
    exclusive = Tax(mode=TaxMode.EXCLUSIVE, calculation=TaxCalculation.STRIPE_TAX)
    told = renewal.expected_charge(exclusive, [D("4.99"), D("9.99")], "USD", first=last, last=last)
    assert (told.amount, told.tax, told.estimated) == (D("16.51"), D("1.53"), True)  # 0.51 + 1.02 on top
    inclusive = exclusive.model_copy(update={"mode": TaxMode.INCLUSIVE})
    told = renewal.expected_charge(inclusive, [D("4.99")], "USD", first=last, last=last)
    assert (told.amount, told.tax) == (D("4.99"), D("0.46"))
    # A last charge without Stripe's tax: the agreed price, its tax unknown.
    told = renewal.expected_charge(exclusive, [D("4.99")], "USD", first=None, last=None)
    assert (told.amount, told.tax, told.estimated) == (D("4.99"), D(0), True)
