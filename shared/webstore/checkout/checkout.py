"""The hosted checkout: show the basket, charge it once, record the payment and complete it.

Paying is an idempotent sequence keyed by the attempt key the page carries (one per page
render), so a reload or a double click never charges twice, and a crash part-way is finished
by the next submit of the same form. Three round trips when all goes well:

1. Read (`read_for_pay`): the basket, its store, this attempt and the basket's order record
   (one BatchGetItem), beside the store's catalog (one Query).
2. Claim (one transaction), beside the reads the basket's content names (buyer, coupons, tier
   slots and tiers, fulfilment's effects): the attempt item is created (`attribute_not_exists`)
   and the basket is marked with it (`version` condition, not complete, no other live attempt,
   order not recorded). Only one attempt per basket can hold the claim; baskets refuse changes
   while it is held. A refusal the reads show (the basket is not sold so now) releases it.
3. Charge through the gateway port with the attempt key as the gateway's idempotency key.
4. Commit (`payments.recording.fulfil`, idempotent per basket): ONE transaction records the
   payment, its commands and counters, completes the basket under the claim and marks the
   attempt paid. Then the command chunks that did not fit and the event (a resubmit repeats
   these: nothing else marks them done).
"""

from __future__ import annotations

import logging
import re
import secrets
from collections.abc import Iterable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from webstore import keys
from webstore.basket import Basket
from webstore.catalog import Package, PackageType, Store
from webstore.checkout import pages, stripe_page, tax_details
from webstore.checkout.gateway import (
    ChargeRequest,
    ChargeResult,
    ChargeStatus,
    PaymentGateway,
)
from webstore.checkout.gateway_choice import gateway_for_store, gateway_refusal
from webstore.checkout.stripe_gateway import StripeGateway
from webstore.checkout.summary import mask_card, order_summary
from webstore.domain.payment_status import PaymentStatus
from webstore.errors import DomainError, Invalid
from webstore.event_types import EventType
from webstore.events import DomainEvent
from webstore.html import PageResult
from webstore.invoices.documents import checkout_invoice_path
from webstore.money import ZERO
from webstore.payments import tax_retry
from webstore.payments.order import Order, OrderLine
from webstore.payments.recording import EarlyEffectsRead, effect_keys, fulfil, resume, start_effects_read
from webstore.payments.subject import SubjectLine, SubjectPayment, payment_subject
from webstore.players import Tier
from webstore.repo import Transaction, start_read
from webstore.repo.baskets import AttemptStatus, BasketReads, BasketRepository, CheckoutAttempt
from webstore.repo.checkout_attempts import AlreadyPaid, CheckoutAttemptRepository, mark_completed
from webstore.repo.discord import DiscordRepository
from webstore.repo.payments import GiftCardUse, PaymentRecord
from webstore.repo.player_tiers import PlayerTierRepository
from webstore.repo.store import StoreRepository, StoreView
from webstore.repo.users import User
from webstore.services import Services
from webstore.storefront.basket_read import Loaded, load
from webstore.storefront.baskets import CHECKOUT_CLAIM_TIMEOUT, reprice
from webstore.storefront.inputs import check_email
from webstore.storefront.theme import in_brand_of
from webstore.tax.model import PaymentTax
from webstore.tax.payment import payment_tax

logger = logging.getLogger(__name__)

# A hosted page's read: the basket, its store and the owner's words (their translation files).
HOSTED_PAGE = BasketReads(words=True)
ATTEMPT_KEY = re.compile(r"^[A-Za-z0-9_-]{16,64}$")
CONSENT_REQUIRED = (
    "This basket holds a subscription: tick the box to agree to its recurring charge before paying."
)


def checkout_url(services: Services, ident: str) -> str:
    return f"{services.settings.storefront_url}/checkout/{ident}"


def receipt_url(services: Services, ident: str) -> str:
    return f"{checkout_url(services, ident)}/receipt"


def return_url(services: Services, ident: str) -> str:
    """Where a processor sends the player back after paying (checkout.stripe_checkout)."""
    return f"{checkout_url(services, ident)}/return"


def gateway_for(services: Services, store: Store) -> PaymentGateway:
    """The store's gateway: its Stripe account, else the sandbox (refused in production unless
    the store opts in: checkout.gateway_choice)."""
    return gateway_for_store(services, store)


# --- the page ------------------------------------------------------------------------------


def checkout_page(services: Services, ident: str) -> PageResult:
    discord = start_read(DiscordRepository(services.table).app, keys.account_of(ident, "Basket"))
    loaded = load(services, ident, None, HOSTED_PAGE)
    basket = loaded.basket
    in_brand_of(loaded.store, loaded.words)
    if basket.complete:
        return PageResult(redirect=receipt_url(services, ident))
    refusal = _not_payable(loaded)
    if refusal:
        return PageResult(
            422,
            pages.message_page(
                "Checkout",
                refusal,
                link=basket.cancel_url or None,
                link_text="Back to the shop",
                store=loaded.store,
            ),
        )
    reprice(basket, loaded.store, services.now())
    # "Link Discord" for a player logged in to a store that connected Discord (docs/discord.md).
    discord_url = discord_link_of(services, ident) if discord.result() and basket.username_id else None
    gateway = gateway_for(services, loaded.store)
    if isinstance(gateway, StripeGateway):  # the Payment Element instead of the card form
        return stripe_page.page(
            services,
            basket,
            loaded.store,
            gateway,
            return_url=return_url(services, ident),
            discord_url=discord_url,
        )
    return PageResult(html=_form(services, basket, store=loaded.store, discord_url=discord_url))


def discord_link_of(services: Services, ident: str) -> str:
    """The "Link Discord" link of a basket's pages (checkout, receipt): webstore.discord.linking."""
    return f"{services.settings.storefront_url}/discord/link?basket={ident}"


def _form(
    services: Services,
    basket: Basket,
    error: str = "",
    *,
    store: Store | None = None,
    field: str = "",
    discord_url: str | None = None,
) -> str:
    """The checkout form (with `error`: again, after a refused payment). Without `store` (a
    path that did not read it) the page is unbranded."""
    store = store or _unbranded(basket)
    view = pages.CheckoutView.of(
        basket,
        store,
        services.now(),
        pay_url=f"{checkout_url(services, basket.ident)}/pay",
        attempt_key=secrets.token_urlsafe(24),
        error=error,
        error_field=field,
        discord_url=discord_url,
    )
    return pages.checkout_page(view)


def _unbranded(basket: Basket) -> Store:
    """A stand-in store for rendering only: the basket's currency, no name, theme or links."""
    return Store(
        id=basket.account_id,
        name="Checkout",
        currency=basket.currency,
        created_at=basket.created_at,
        public_token="-",
        checkout_key_hash="-",
    )


def _has_subscription(basket: Basket) -> bool:
    return any(line.type is PackageType.SUBSCRIPTION and not line.dynamic for line in basket.lines)


def _not_payable(loaded: Loaded) -> str:
    basket, store = loaded.basket, loaded.store
    if store.disabled:
        return "This store is not taking payments right now."
    if not basket.lines:
        return "Your basket is empty."
    if store.supports_usernames and not basket.username:
        return "Log in to the shop with your username before paying."
    return ""


# --- paying --------------------------------------------------------------------------------


@dataclass
class PayRead:
    """The pay sequence's first round trip: the basket, its store, this attempt and the basket's
    order (one BatchGetItem), with the store's catalog (one Query) issued beside it."""

    loaded: Loaded
    catalog: Future[StoreView]


def read_for_pay(services: Services, ident: str, key: str) -> PayRead:
    """Every read whose key is known before the basket is: one round trip."""
    catalog = start_read(StoreRepository(services.table).operator_view, keys.account_of(ident, "Basket"))
    loaded = load(
        services, ident, None, BasketReads(checkout_attempt=key, order=order_key(ident), words=True)
    )
    return PayRead(loaded, catalog)


AMOUNT = re.compile(r"^[0-9]{1,12}(\.[0-9]{1,4})?$")


def pay_form(
    services: Services,
    ident: str,
    key: str,
    card_number: str,
    shown_amount: str | None,
    *,
    consent: bool = False,
    email: str | None = None,
) -> PageResult:
    """The checkout form's submission. It carries the amount due the page showed (the hidden
    `amount_due`): a post without it, or with something that is not an amount, is refused
    (422 naming the field, nothing claimed or charged) rather than charged the current price."""
    if not ATTEMPT_KEY.match(key or ""):
        raise Invalid("attempt_key is missing or malformed; reload the checkout page", field="attempt_key")
    if not AMOUNT.match((shown_amount or "").strip()):
        raise Invalid(
            "amount_due is missing or not an amount (the amount the checkout page showed); reload the page",
            field="amount_due",
        )
    return pay(services, ident, key, card_number, (shown_amount or "").strip(), consent=consent, email=email)


def pay(
    services: Services,
    ident: str,
    key: str,
    card_number: str,
    shown_amount: str | None = None,
    *,
    consent: bool = False,
    email: str | None = None,
    first: PayRead | None = None,
    gateway: PaymentGateway | None = None,
    announce_decline: bool = True,
) -> PageResult:
    """Pay for the basket under attempt `key`. `shown_amount`: the amount due the form showed;
    a new attempt never charges more (the store's prices went up meanwhile: the form again).
    `consent`: the player ticked the recurring-charge box (required for a subscription).
    `email`: the receipt address the form sent (blank: keep the basket's), stored by the claim.
    `first`: `read_for_pay` of this basket and key, when the caller made it already.
    `gateway`: instead of the store's own (the reconciler's, which only finds what was charged);
    `announce_decline`: publish `payment.declined` when the charge is declined.

    Three round trips when all goes well: `read_for_pay`; the claim, with the reads that
    depend on the basket's content beside it (buyer, coupons, tiers, fulfilment's effects); the
    payment's one transaction, which also completes the basket."""
    if not ATTEMPT_KEY.match(key or ""):
        raise Invalid("attempt_key is missing or malformed; reload the checkout page", field="attempt_key")
    first = first or read_for_pay(services, ident, key)
    loaded = first.loaded
    basket = loaded.basket
    in_brand_of(loaded.store, loaded.words)
    try:
        basket.email = check_email(email or "") or basket.email
    except Invalid as refused:
        if basket.complete or loaded.order is not None:
            raise
        basket.email = (email or "")[:254]  # shown again to be corrected (this copy is not stored)
        return PageResult(422, _form(services, basket, refused.detail, store=loaded.store, field="email"))
    previous = loaded.attempt
    now = services.now()
    if loaded.order is not None:  # paid already (perhaps by an attempt that died before finishing)
        return _already_paid(services, loaded, key, gateway or gateway_for(services, loaded.store), now)
    if basket.complete:
        return _after_payment(services, basket)
    if previous is not None and previous.status is AttemptStatus.DECLINED:
        return PageResult(
            402, _form(services, basket, previous.reason or "The payment was declined", store=loaded.store)
        )
    if previous is not None and basket.checkout_attempt != key:
        # This attempt's claim was taken over after it timed out: it must not charge now, and
        # whatever it charged before it stopped goes back (idempotent).
        refunded = (gateway or gateway_for(services, loaded.store)).refund_attempt(key)
        _release(services, basket, key, now, reason="superseded by a newer attempt")
        return PageResult(409, _form(services, basket, _superseded(refunded), store=loaded.store))
    refusal = _not_payable(loaded) or gateway_refusal(services, loaded.store)
    if refusal:
        _give_back(services, loaded.store, key)
        return PageResult(422, pages.message_page("Checkout", refusal, store=loaded.store))
    untaxed = tax_details.refusal(basket, loaded.store)
    if previous is None and untaxed:
        _give_back(services, loaded.store, key)
        reprice(basket, loaded.store, now)
        return PageResult(422, _form(services, basket, untaxed, store=loaded.store, field="billing_country"))
    if previous is None and not consent and _has_subscription(basket):
        _give_back(services, loaded.store, key)  # a processor's payment made without it goes back
        reprice(basket, loaded.store, now)
        return PageResult(422, _form(services, basket, CONSENT_REQUIRED, store=loaded.store))
    # What the store sells now (the catalog, read in the first round trip; fulfilment uses it
    # too), and what the basket's content names: the buyer, the coupons' current definitions,
    # the tiers its subscriptions would change, and what recording the payment compares
    # against. These are read beside the claim (one round trip); a refusal they show releases
    # the claim, before anything is charged.
    view = first.catalog.result()
    named = BasketReads(
        username=basket.username,
        coupon_codes=tuple(c.code for c in basket.coupons),
        giftcard_numbers=tuple(basket.giftcards),
        tier_slots=_tier_slots(basket),
    )
    held_tiers = _start_tiers_read(services, basket, view)
    early = _start_effects_read(services, basket, view, key, now)
    if previous is None:
        current = start_read(BasketRepository(services.table).read, basket.account_id, named)
        superseded = basket.checkout_attempt  # a stale claim of an attempt that stopped, or None
        try:
            _claim(services, basket, key, now)
        except AlreadyPaid:  # recorded since the read: answer as if the read had seen it
            return pay(services, ident, key, card_number, consent=consent, email=email, gateway=gateway)
        found = current.result()
    else:  # resumed: the claim is this attempt's already
        superseded = previous.taken_over
        found = BasketRepository(services.table).read(basket.account_id, named)
    held = [tier for read in held_tiers for tier in read.result()]
    tiers = _ongoing_tiers(services, basket.account_id, found.tier_slots, view, held)
    applied = dict(basket.giftcard_balances)  # as the basket's cards were when applied
    try:
        basket.as_sold_now(
            _catalog_of(view, basket, tiers.values()), found.coupons, now, tiers, giftcards=found.giftcards
        )
    except DomainError as refused:
        _refused_after_claim(services, loaded.store, basket, key, now, previous, refused.detail)
        return PageResult(
            422,
            pages.message_page(
                "Checkout",
                refused.detail,
                link=basket.cancel_url or None,
                link_text="Back to the shop",
                store=loaded.store,
            ),
        )
    if previous is None and _price_changed(basket, loaded.store, now, shown_amount):
        due = f"{basket.total_price - basket.giftcard_amount} {basket.currency}"
        spent = [n for n in basket.giftcards if basket.giftcard_balances.get(n, ZERO) < applied.get(n, ZERO)]
        message = (
            f"{_cards_spent(spent)}: the amount due is now {due}. Check it and pay again."
            if spent
            else f"The store's prices went up since this page was shown: the total is now {due}. "
            "Check it and pay again."
        )
        _release(services, basket, key, now, reason="the store's prices went up")
        return PageResult(409, _form(services, basket, message, store=loaded.store))
    if previous is None and basket.tax_pending(
        loaded.store
    ):  # the lines changed since the tax was calculated
        _release(services, basket, key, now, reason="the tax must be calculated again")
        return PageResult(
            409, _form(services, basket, tax_details.RECALCULATE, store=loaded.store, field="billing_country")
        )
    gateway = gateway or gateway_for(services, loaded.store)
    if superseded:
        # The order is not recorded (the claim checked) and the old attempt can no longer record
        # it (fulfilment checks the claim): whatever it charged goes back. The claim kept its
        # key on this attempt, so a resumed attempt repeats this (the refund is idempotent).
        gateway.refund_attempt(superseded)
    reprice(basket, loaded.store, now)
    amount_due = basket.total_price - basket.giftcard_amount

    try:
        charge = gateway.charge(
            ChargeRequest(
                key,
                amount_due,
                basket.currency,
                f"Basket {ident}",
                card_number,
                basket.email,
                save_method=_has_subscription(basket),  # renewals charge it off-session
            )
        )
    except Exception as error:  # the processor may or may not have taken the money
        return _unfulfilled(services, basket, key, gateway, error, store=loaded.store)
    if charge.status is ChargeStatus.DECLINED:
        declined = [declined_event(services, basket, charge.reason, gateway.name)] if announce_decline else []
        _release(services, basket, key, now, reason=charge.reason, events=declined)
        return PageResult(402, _form(services, basket, charge.reason, store=loaded.store))
    if charge.status is ChargeStatus.REDIRECT:
        return PageResult(redirect=charge.redirect_url)
    return settle(
        services, basket, key, amount_due, charge, view=view, buyer=found.user, gateway=gateway, early=early
    )


def _refused_after_claim(
    services: Services,
    store: Store,
    basket: Basket,
    key: str,
    now: datetime,
    previous: CheckoutAttempt | None,
    reason: str,
) -> None:
    """The basket cannot be sold as it is now: what a processor took for this attempt goes
    back, and its claim is released (a corrected basket is paid by a new attempt)."""
    if previous is None:
        _give_back(services, store, key)
    else:  # it may have charged before it stopped (the refund is idempotent)
        gateway_for(services, store).refund_attempt(key)
    _release(services, basket, key, now, reason=reason)


def _give_back(services: Services, store: Store, key: str) -> None:
    """A refused attempt: what a processor already took for it (a payment confirmed in the page
    before the pay step ran) goes back. The sandbox takes nothing before the pay step."""
    if store.gateways.stripe is not None:
        gateway_for(services, store).refund_attempt(key)


def _price_changed(basket: Basket, store: Store, now: datetime, shown_amount: str | None) -> bool:
    """Whether the amount due now (the basket repriced as sold now) is more than the form
    showed: never charge more than the player saw (less, e.g. a tier upgrade's prorated price
    or a cheaper package, goes ahead)."""
    if not shown_amount:
        return False
    reprice(basket, store, now)
    try:
        shown = Decimal(shown_amount)
    except ArithmeticError:
        return True
    return basket.total_price - basket.giftcard_amount > shown


def _cards_spent(numbers: list[str]) -> str:
    """Which gift cards cover less than when they were applied (spent elsewhere meanwhile)."""
    named = ", ".join(f"Gift card {mask_card(n)}" for n in numbers)
    return f"{named} now cover{'s' if len(numbers) == 1 else ''} less than when applied (used meanwhile)"


def _tier_slots(basket: Basket) -> tuple[tuple[int, int], ...]:
    """(receiving player, category) of the subscription lines: where a tier may be upgraded."""
    slots = {
        (receiver, line.category_id)
        for line in basket.lines
        if line.type is PackageType.SUBSCRIPTION and (receiver := basket.receiver_id(line)) is not None
    }
    return tuple(sorted(slots))


def _start_tiers_read(services: Services, basket: Basket, view: StoreView) -> list[Future[list[Tier]]]:
    """The tiers of the players the basket's subscriptions in tiered categories are for (one
    GSI1 Query per player, issued now; none when no such line): what an upgrade is priced from."""
    players = sorted(
        {
            receiver
            for line in basket.lines
            if line.type is PackageType.SUBSCRIPTION
            and (receiver := basket.receiver_id(line)) is not None
            and (category := view.category(line.category_id)) is not None
            and category.tiered
        }
    )
    repository = PlayerTierRepository(services.table)
    return [start_read(repository.of_player, basket.account_id, player) for player in players]


def _ongoing_tiers(
    services: Services,
    account_id: int,
    slots: dict[tuple[int, int], int],
    view: StoreView,
    held: list[Tier],
) -> dict[tuple[int, int], Tier]:
    """The ongoing tiers the slots name (the slot read is consistent), in categories that are
    tiered, found among the players' tiers as the index has them (`held`); a tier the index
    does not show yet is read by its key (one GetItem: a tier made a moment ago)."""
    tiers = {}
    by_id = {tier.id: tier for tier in held}
    repository = PlayerTierRepository(services.table)
    for slot, tier_id in slots.items():
        category = view.category(slot[1])
        if category is None or not category.tiered:
            continue
        tier = by_id.get(tier_id) or repository.get(account_id, tier_id)
        if tier is not None and tier.ongoing:
            tiers[slot] = tier
    return tiers


def _start_effects_read(
    services: Services, basket: Basket, view: StoreView, key: str, now: datetime
) -> EarlyEffectsRead | None:
    """Fulfilment's read (the order record, id sequences, stats, spend, coupons, goals, tier
    slots, timers), issued now with the players the basket names by id: fulfilment uses it when
    the registry gives the same ids (else it reads again). None when the basket names no id."""
    if basket.username_id is None:
        return None
    buyer = User(id=basket.username_id, username=basket.username or "", uuid="")
    recipients = {buyer.username.lower(): buyer}
    for line in basket.lines:
        if line.gift_username:
            if not line.gift_username_id:
                return None
            recipients[line.gift_username.lower()] = User(
                id=int(line.gift_username_id), username=line.gift_username, uuid=""
            )
    order = _order(basket, ZERO, "", key, "")
    try:
        wanted = effect_keys(order, view, buyer, recipients, now)
    except DomainError:  # fulfilment refuses it the same way, after the claim's checks
        return None
    return start_effects_read(services, wanted)


def _catalog_of(view: StoreView, basket: Basket, tiers: Iterable[Tier]) -> dict[int, Package]:
    """The packages the basket's lines name, and those its players' tiers are on."""
    wanted = {line.package_id for line in basket.lines if not line.dynamic} | {t.package_id for t in tiers}
    found = {package_id: view.package(package_id) for package_id in wanted}
    return {package_id: package for package_id, package in found.items() if package is not None}


def order_key(ident: str) -> str:
    """Fulfilment's idempotency key of a basket's order: one payment per basket, ever."""
    return f"basket-{ident}"


def settle(
    services: Services,
    basket: Basket,
    key: str,
    amount_due: Decimal,
    charge: ChargeResult,
    *,
    view: StoreView | None = None,
    buyer: User | None = None,
    gateway: PaymentGateway | None = None,
    early: EarlyEffectsRead | None = None,
) -> PageResult:
    """A paid charge: fulfil the order (idempotent per basket) and complete the basket, in the
    payment's one transaction (under this attempt's claim).

    Every way out of here leaves the charge either paying the recorded payment or refunded:
    an order fulfilment refuses (a coupon or gift card ran out meanwhile, the claim was taken
    over), any unexpected error before the payment is recorded, and an order that another
    attempt's charge already paid all refund this charge."""
    if gateway is None:
        store = view.store if view is not None else StoreRepository(services.table).store(basket.account_id)
        gateway = gateway_for(services, store)
    now = services.now()
    try:
        shown = view.store if view is not None else None
        tax = payment_tax(basket, charge.card_country, flat_rate=shown.tax.rate if shown else ZERO)
        tax_pending = False
        if tax is not None and tax.stripe_calculation_id:
            taxing = shown or StoreRepository(services.table).store(basket.account_id)
            tax.stripe_transaction_id = tax_details.record_stripe_tax(
                services, taxing, tax.stripe_calculation_id, order_key(basket.ident)
            )
            tax_pending = tax.stripe_transaction_id is None
        order = _order(basket, amount_due, gateway.name, key, charge.saved_method, tax)

        def completing(tx: Transaction, payment: PaymentRecord) -> None:
            CheckoutAttemptRepository.add_completion(tx, basket, key, payment.transaction_id, now)
            if tax_pending:  # Stripe out of reach: the clock makes the tax transaction later
                tax_retry.add_retry(tx, payment, now)

        payment = fulfil(services, order, view, buyer, early=early, with_payment=completing)
    except Exception as error:
        return _unfulfilled(services, basket, key, gateway, error, store=view.store if view else None)
    if payment.checkout_attempt != key:  # recorded under another charge: this one is a second
        refunded = gateway.refund_attempt(key)
        _release(services, basket, key, now, reason="the order was already paid")
        return _complete_paid(services, basket, None, payment.transaction_id, now, refunded=refunded)
    mark_completed(basket, payment.transaction_id, now)  # as the transaction stored it
    basket.version += 1
    return _after_payment(services, basket)


def _unfulfilled(
    services: Services,
    basket: Basket,
    key: str,
    gateway: PaymentGateway,
    error: Exception,
    *,
    store: Store | None = None,
) -> PageResult:
    """Fulfilment failed after the charge. If the order was recorded all the same (the error
    came after its transaction), the payment stands and a resubmit finishes; otherwise the
    money goes back. When even that cannot be told, the error stands (500) and the attempt
    stays pending: the next submit of the form resumes it with the same charge."""
    recorded = (
        BasketRepository(services.table)
        .read(basket.account_id, BasketReads(basket=basket.ident, order=order_key(basket.ident)))
        .order
    )
    if recorded is not None and recorded.checkout_attempt == key:
        raise error  # paid and recorded: the next submit completes the basket
    refunded = gateway.refund_attempt(key)
    now = services.now()
    reason = error.detail if isinstance(error, DomainError) else "the order could not be recorded"
    _release(services, basket, key, now, reason=reason)
    if recorded is not None:  # another attempt's charge paid it
        payment = resume(services, basket.account_id, recorded.payment_id)
        return _complete_paid(services, basket, None, payment.transaction_id, now, refunded=refunded)
    if not isinstance(error, DomainError):
        logger.exception("checkout: fulfilment failed after the charge; refunded=%s", refunded)
    outcome = "your payment was refunded" if refunded else "contact the store for a refund"
    message = f"We could not complete the order ({reason}); {outcome}."
    return PageResult(409, _form(services, basket, message, store=store))


def _already_paid(
    services: Services, loaded: Loaded, key: str, gateway: PaymentGateway, now: datetime
) -> PageResult:
    """The basket's order is recorded: never charge again. An attempt of this key that is not
    the one that paid may have charged before it stopped: that charge goes back."""
    basket, recorded = loaded.basket, loaded.order
    assert recorded is not None
    paid_by_this = recorded.checkout_attempt == key
    refunded = True
    if loaded.attempt is not None and not paid_by_this:
        refunded = gateway.refund_attempt(key)
        if loaded.attempt.status is AttemptStatus.PENDING:
            _close(services, basket, key, now, reason="the order was already paid")
    if basket.complete and not paid_by_this:
        return _complete_paid(services, basket, None, None, now, refunded=refunded)
    # The run that recorded it (and completed the basket in the same transaction) may have
    # stopped before queueing the rest of its commands or publishing its event: finish those
    # (each at most once: chunks are conditional, the event's id is the payment's).
    payment = resume(services, basket.account_id, recorded.payment_id)
    return _complete_paid(
        services, basket, key if paid_by_this else None, payment.transaction_id, now, refunded=refunded
    )


def _complete_paid(
    services: Services,
    basket: Basket,
    key: str | None,
    transaction_id: str | None,
    now: datetime,
    *,
    refunded: bool,
) -> PageResult:
    """Complete a basket whose order is recorded (by this attempt when `key` is given)."""
    if not basket.complete and transaction_id:
        fresh = BasketRepository(services.table).get(basket.ident)
        if not fresh.complete:
            _complete(services, fresh, key, transaction_id, now)
        basket = fresh
    if not refunded:
        return PageResult(
            409,
            pages.message_page(
                "Checkout",
                "This basket was already paid; this second payment could not be refunded "
                "automatically: contact the store for a refund.",
            ),
        )
    return _after_payment(services, basket)


def _superseded(refunded: bool) -> str:
    outcome = "anything it charged was refunded" if refunded else "contact the store for a refund"
    return f"This payment attempt was replaced by a newer one; {outcome}. Pay again below."


def _claim(services: Services, basket: Basket, key: str, now: datetime) -> None:
    """Mark the basket with this attempt, or learn who holds it (409)."""
    CheckoutAttemptRepository(services.table).claim(
        basket, key, order_key(basket.ident), now, now - CHECKOUT_CLAIM_TIMEOUT
    )


def _release(
    services: Services,
    basket: Basket,
    key: str,
    now: datetime,
    *,
    reason: str,
    events: Sequence[DomainEvent] = (),
) -> None:
    """Close a failed attempt and free the basket for the next one (if it still holds it),
    with the attempt's `events` in the same write."""
    CheckoutAttemptRepository(services.table).release(basket, key, now, reason, events)


def _close(services: Services, basket: Basket, key: str, now: datetime, *, reason: str) -> None:
    CheckoutAttemptRepository(services.table).close(basket.ident, key, now, reason)


def _complete(
    services: Services, basket: Basket, key: str | None, transaction_id: str, now: datetime
) -> None:
    CheckoutAttemptRepository(services.table).complete(basket, key, transaction_id, now)


def _after_payment(services: Services, basket: Basket) -> PageResult:
    if basket.complete_auto_redirect and basket.complete_url:
        return PageResult(redirect=basket.complete_url)
    return PageResult(redirect=receipt_url(services, basket.ident))


def _order(
    basket: Basket,
    amount_due: Decimal,
    gateway: str,
    key: str,
    saved_method: str,
    tax: PaymentTax | None = None,
) -> Order:
    return Order(
        tax=tax,
        saved_method=saved_method,
        account_id=basket.account_id,
        idempotency_key=order_key(basket.ident),
        checkout_attempt=key,
        username=basket.username or "",
        email=basket.email or "",
        ip=basket.ip,
        country=basket.country,
        lines=[
            OrderLine(
                package_id=line.package_id,
                quantity=line.quantity,
                paid_price=line.line_price,
                variables=line.variable_data,
                gift_username=line.gift_username,
                name=line.name if line.dynamic else None,
                category_id=line.category_id if line.dynamic else None,
                dynamic=line.dynamic,
            )
            for line in basket.lines
        ],
        price_paid=amount_due,
        currency=basket.currency,
        gateway=gateway,
        coupons=[c.code for c in basket.coupons],
        giftcards=[
            GiftCardUse(card_number=number, amount=amount)
            for number, amount in basket.giftcard_split.items()
            if amount > 0
        ],
        creator_code=basket.creator_code,
        basket_ident=basket.ident,
        custom=basket.custom,
    )


def declined_event(services: Services, basket: Basket, reason: str, gateway: str) -> DomainEvent:
    """`payment.declined`: the payment subject of what the basket would have paid (nothing was
    stored, so there is no transaction id) with the gateway's reason."""
    subject = payment_subject(
        SubjectPayment(
            transaction_id=None,
            status=PaymentStatus.DECLINED,
            created_at=services.now(),
            currency=basket.currency,
            price_paid=ZERO,
            gateway=gateway,
            email=basket.email or "",
            ip=basket.ip,
            country=basket.country,
            username_id=basket.username_id,
            username=basket.username or "",
            lines=[
                SubjectLine(
                    package_id=line.package_id,
                    name=line.name,
                    quantity=line.quantity,
                    base_price=line.base_price,
                    paid_price=line.line_price,
                    variables=line.variable_data,
                    username_id=line.gift_username_id if line.gift_username else basket.username_id,
                    username=line.gift_username or basket.username or "",
                )
                for line in basket.lines
            ],
            coupons=[c.code for c in basket.coupons],
            gift_cards=[(number, amount) for number, amount in basket.giftcard_split.items() if amount > 0],
            custom=basket.custom,
            creator_code=basket.creator_code,
            decline_reason=reason,
        )
    )
    subject["basket_ident"] = basket.ident  # which basket stays unpaid (not in a stored payment's subject)
    return DomainEvent(type=EventType.PAYMENT_DECLINED, account_id=basket.account_id, subject=subject)


# --- the receipt ---------------------------------------------------------------------------


def receipt(services: Services, ident: str) -> PageResult:
    """The paid basket as the checkout showed it (priced as of its completion), with its
    transaction id; read with its store (one round trip) for the store's name and look, and
    beside them whether the store connected Discord (the "Link Discord" link)."""
    discord = start_read(DiscordRepository(services.table).app, keys.account_of(ident, "Basket"))
    loaded = load(services, ident, None, HOSTED_PAGE)
    basket, store = loaded.basket, loaded.store
    in_brand_of(store, loaded.words)
    if not basket.complete or not basket.transaction_id:
        return PageResult(redirect=checkout_url(services, ident))
    view = pages.ReceiptView(
        store=store,
        summary=order_summary(basket, store, basket.updated_at),
        transaction_id=basket.transaction_id,
        username=basket.username,
        email=basket.email or "",
        continue_url=basket.complete_url,
        invoice_url=services.settings.storefront_url
        + checkout_invoice_path(store.id, basket.transaction_id, basket.ident),
        manage_url=f"{checkout_url(services, ident)}/subscription"
        if any(line.type is PackageType.SUBSCRIPTION for line in basket.lines)
        else None,
        discord_url=discord_link_of(services, ident) if discord.result() else None,
    )
    return PageResult(html=pages.receipt_page(view))
