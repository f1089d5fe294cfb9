"""The Stripe adapter behind the gateway port: the store owner's own Stripe account.

How a checkout pays with it: the checkout page creates a PaymentIntent for the amount due
(`create_intent`, Stripe idempotency key per page render) and Stripe.js confirms it in the
page. The PaymentIntent's id is the checkout attempt's key, so everything the port does by
attempt key finds it: `charge` does not move money, it checks that the PaymentIntent the page
confirmed paid exactly this basket (amount, currency, description) and answers PAID;
`refund_attempt` gives back (or cancels) whatever that PaymentIntent is. Renewals charge the
saved method off-session (`charge_saved`), refunds go through `refund`.

Every call that creates something carries a Stripe idempotency key, and the client pins the
API version, so a retried call is answered with the first call's result and the answers' shape
does not change under us. The `stripe` library is imported on first use only.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from webstore.checkout.gateway import ChargeRequest, ChargeResult, ChargeStatus, OffSessionCharge
from webstore.domain.gateways import STRIPE
from webstore.money import MINOR_UNITS, round_money

if TYPE_CHECKING:
    from stripe import StripeClient

logger = logging.getLogger(__name__)

# The API version every call asks for (the one stripe==16.1.0 was generated from): a Stripe
# account's default version may move on, our reading of the answers does not.
STRIPE_API_VERSION = "2026-10-28.endive"
NETWORK_RETRIES = 2  # the library retries with the same idempotency key
# Stripe reads these currencies' amounts with another exponent than ISO 4217 (it keeps two
# decimals for ISK; the amount must then be whole).
_STRIPE_EXPONENT = {"ISK": 2}
# Where a PaymentIntent is still open: it can still be paid (so a refused attempt cancels it).
_OPEN = frozenset({"requires_payment_method", "requires_confirmation", "requires_action"})


class AmountNotPayable(ValueError):
    """An amount Stripe cannot charge in its currency (finer than its minor unit)."""


def exponent(currency: str) -> int:
    currency = currency.upper()
    return _STRIPE_EXPONENT.get(currency, MINOR_UNITS.get(currency, 2))


def to_minor_units(amount: Decimal, currency: str) -> int:
    """The exact integer Stripe charges for `amount` (JPY 500 → 500, USD 4.99 → 499, KWD 1.25 →
    1250). The amount is the pricing code's, already rounded to the currency; anything finer is
    refused rather than rounded, so a charge is never a cent off what the basket shows."""
    scaled = round_money(amount, currency).scaleb(exponent(currency))
    if scaled != scaled.to_integral_value() or round_money(amount, currency) != amount:
        raise AmountNotPayable(f"{amount} {currency} is finer than the currency's minor unit")
    return int(scaled)


def from_minor_units(units: int, currency: str) -> Decimal:
    return round_money(Decimal(units).scaleb(-exponent(currency)), currency)


@dataclass(frozen=True)
class StripeIntent:
    """What the checkout needs of a PaymentIntent (the library's object stays in here)."""

    id: str
    status: str
    amount: int  # minor units
    currency: str  # upper case, as the store's
    description: str
    metadata: dict[str, str] = field(default_factory=dict)
    client_secret: str = ""
    payment_method: str = ""
    customer: str = ""
    amount_refunded: int = 0
    disputed: bool = False
    error: str = ""  # the last payment error's message, for the player
    setup_future_usage: str = ""  # "off_session": created to save the method (a subscription)
    card_country: str = ""  # the card's issuing country (tax evidence), when Stripe tells it

    @property
    def saved_method(self) -> str:
        """`customer/payment_method`: what `charge_saved` needs to charge it again."""
        return f"{self.customer}/{self.payment_method}" if self.customer and self.payment_method else ""


def plain(obj: Any) -> dict[str, Any]:
    """The library's object as plain JSON values (its objects are not dicts)."""
    return obj.to_dict() if hasattr(obj, "to_dict") else dict(obj or {})


def _intent(found: Any) -> StripeIntent:
    obj = plain(found)
    charge = obj.get("latest_charge")
    refunded, disputed, country = 0, False, ""
    if isinstance(charge, dict):
        refunded = int(charge.get("amount_refunded") or 0)
        disputed = bool(charge.get("disputed"))
        country = str(((charge.get("payment_method_details") or {}).get("card") or {}).get("country") or "")
    error = obj.get("last_payment_error") or {}
    method = obj.get("payment_method") or ""
    if not country and isinstance(method, dict):  # the method expanded: its card's country
        country = str((method.get("card") or {}).get("country") or "")
    customer = obj.get("customer") or ""
    return StripeIntent(
        id=obj["id"],
        status=obj["status"],
        amount=int(obj["amount"]),
        currency=str(obj["currency"]).upper(),
        description=obj.get("description") or "",
        metadata=dict(obj.get("metadata") or {}),
        client_secret=obj.get("client_secret") or "",
        payment_method=method if isinstance(method, str) else method["id"],
        customer=customer if isinstance(customer, str) else customer["id"],
        amount_refunded=refunded,
        disputed=disputed,
        error=(error.get("message") or "") if error else "",
        setup_future_usage=obj.get("setup_future_usage") or "",
        card_country=country.upper(),
    )


@dataclass(frozen=True)
class StripeAccount:
    """What a secret key opens at Stripe (`StripeGateway.account`): the account, its mode, and
    whether Stripe lets it take charges yet (None: a restricted key may not read the account)."""

    id: str
    live: bool
    charges_enabled: bool | None
    name: str = ""


class StripeGateway:
    """One store's Stripe account. `secret_key` is asked for on the first call only (opening
    the sealed key needs `Access.GATEWAY_KEY`)."""

    name = STRIPE.name
    gateway_id = STRIPE.id

    def __init__(
        self,
        secret_key: Callable[[], str],
        *,
        publishable_key: str = "",
        api_base: str | None = None,
        account_id: int | None = None,
        authentication_page: str = "",
    ) -> None:
        self._secret_key = secret_key
        # Our page where a player completes an off-session charge their bank wants them to
        # authenticate (the charge's idempotency key follows); "": Stripe's own URL, if any.
        self.authentication_page = authentication_page
        self._account = {"account_id": str(account_id)} if account_id is not None else {}
        self.publishable_key = publishable_key
        self._api_base = api_base
        self._client_instance: StripeClient | None = None

    def _client(self) -> StripeClient:
        if self._client_instance is None:
            from stripe import StripeClient

            self._client_instance = StripeClient(
                self._secret_key(),
                stripe_version=STRIPE_API_VERSION,
                base_addresses={"api": self._api_base} if self._api_base else None,
                max_network_retries=NETWORK_RETRIES,
            )
        return self._client_instance

    def client(self) -> StripeClient:
        """The account's client (the Stripe Tax adapter, webstore.tax.stripe_tax, shares it)."""
        return self._client()

    def account(self) -> StripeAccount:
        """The account the secret key belongs to: one authenticated read (`GET /v1/account`),
        the cheapest call that proves the key. Stripe's AuthenticationError (an unknown or
        revoked key) and APIConnectionError pass through to the caller; a restricted key that may
        not read the account (PermissionError) is still a key Stripe knows."""
        from stripe import PermissionError as StripePermissionError

        live = self._secret_key()[3:].startswith("live_")
        try:
            found = plain(self._client().v1.accounts.retrieve_current())
        except StripePermissionError:
            return StripeAccount(id="", live=live, charges_enabled=None)
        settings = found.get("settings") or {}
        dashboard = settings.get("dashboard") or {} if isinstance(settings, dict) else {}
        return StripeAccount(
            id=str(found.get("id") or ""),
            live=live,
            charges_enabled=bool(found.get("charges_enabled")),
            name=str(dashboard.get("display_name") or ""),
        )

    def create_webhook_endpoint(self, url: str, events: list[str], *, idempotency_key: str) -> str:
        """A webhook endpoint in the account sending `events` to `url`; its signing secret (Stripe
        shows it on creation only; a retried create with the same key answers the same one)."""
        created = plain(
            self._client().v1.webhook_endpoints.create(
                params={"url": url, "enabled_events": events, "api_version": STRIPE_API_VERSION},  # type: ignore[typeddict-item]
                options={"idempotency_key": idempotency_key},
            )
        )
        return str(created["secret"])

    # --- the checkout page ---------------------------------------------------------------

    def create_intent(
        self,
        *,
        idempotency_key: str,
        amount: Decimal,
        currency: str,
        description: str,
        metadata: dict[str, str],
        email: str | None = None,
        save_method: bool = False,
    ) -> StripeIntent:
        """A PaymentIntent for exactly `amount`, to be confirmed by Stripe.js in the page. With
        `save_method` the method is kept on a new Customer for off-session renewals."""
        params: dict[str, Any] = {
            "amount": to_minor_units(amount, currency),
            "currency": currency.lower(),
            "description": description,
            "metadata": metadata,
            "automatic_payment_methods": {"enabled": True},
        }
        if email:
            params["receipt_email"] = email
        if save_method:
            customer = self._client().v1.customers.create(
                params={"email": email, "metadata": metadata} if email else {"metadata": metadata},
                options={"idempotency_key": f"{idempotency_key}-customer"},
            )
            params["customer"] = customer["id"]
            params["setup_future_usage"] = "off_session"
        created = self._client().v1.payment_intents.create(
            params=params,  # type: ignore[arg-type]
            options={"idempotency_key": idempotency_key},
        )
        return _intent(created)

    def intent(self, intent_id: str) -> StripeIntent:
        """The PaymentIntent as Stripe has it now (its charge expanded: refunds, disputes)."""
        found = self._client().v1.payment_intents.retrieve(
            intent_id, params={"expand": ["latest_charge", "payment_method"]}
        )
        return _intent(found)

    # --- the port --------------------------------------------------------------------------

    def charge(self, request: ChargeRequest) -> ChargeResult:
        """The attempt key is the PaymentIntent the page confirmed: PAID when it succeeded for
        exactly this charge. An amount, currency or basket that differs is refused and the
        payment given back; an intent that can still be paid in the page is cancelled when
        declined, so a stale page cannot pay an attempt that was already refused."""
        from stripe import StripeError

        if request.amount == 0 and not request.attempt_key.startswith("pi_"):
            return ChargeResult(ChargeStatus.PAID)  # gift cards cover it all: nothing to charge
        if not request.attempt_key.startswith("pi_"):
            return ChargeResult(ChargeStatus.DECLINED, reason="Pay with the card form of the checkout page")
        try:
            intent = self.intent(request.attempt_key)
        except StripeError as error:
            logger.warning("stripe: the attempt's PaymentIntent cannot be read: %s", error.code)
            return ChargeResult(ChargeStatus.DECLINED, reason="This payment is not known to the processor")
        if intent.description != request.description:
            return ChargeResult(ChargeStatus.DECLINED, reason="This payment was made for another basket")
        if intent.status in ("processing", "requires_capture"):
            return ChargeResult(ChargeStatus.REDIRECT, reference=intent.id)  # its webhook settles it
        if intent.status != "succeeded":
            self._cancel_open(intent)
            return ChargeResult(
                ChargeStatus.DECLINED, reason=intent.error or "The payment did not go through"
            )
        if intent.amount_refunded or intent.disputed:
            return ChargeResult(ChargeStatus.DECLINED, reason="This payment was refunded or disputed")
        try:
            expected = to_minor_units(request.amount, request.currency)
        except AmountNotPayable:
            expected = -1
        if intent.amount != expected or intent.currency != request.currency.upper():
            refunded = self.refund_attempt(intent.id)
            paid = f"{from_minor_units(intent.amount, intent.currency)} {intent.currency}"
            due = f"{request.amount} {request.currency}"
            outcome = "it was refunded" if refunded else "contact the store for a refund"
            return ChargeResult(
                ChargeStatus.DECLINED,
                reason=f"The amount paid ({paid}) is not the amount due ({due}): {outcome}",
            )
        return ChargeResult(
            ChargeStatus.PAID,
            reference=intent.id,
            saved_method=intent.saved_method,
            card_country=intent.card_country,
        )

    def find_charge(self, request: ChargeRequest) -> ChargeResult:
        """`charge` only reads the PaymentIntent the page confirmed (it never takes money), and
        gives back what differs from `request` or cancels an intent still open."""
        return self.charge(request)

    def charge_saved(self, request: OffSessionCharge) -> ChargeResult:
        """An off-session PaymentIntent on the saved method (`customer/payment_method`). One that
        needs the player's authentication counts as declined; `redirect_url` is where they can
        complete it when Stripe gives one."""
        from stripe import CardError, StripeError

        customer, _, method = request.saved_method.partition("/")
        if not customer.startswith("cus_") or not method:
            return ChargeResult(ChargeStatus.DECLINED, reason="No saved card to charge")
        try:
            created = self._client().v1.payment_intents.create(
                params={
                    "amount": to_minor_units(request.amount, request.currency),
                    "currency": request.currency.lower(),
                    "customer": customer,
                    "payment_method": method,
                    "description": request.description,
                    # Which charge of ours it is, for the webhook events of it (the renewal cycle).
                    "metadata": {"off_session_charge": request.idempotency_key, **self._account},
                    "off_session": True,
                    "confirm": True,
                },
                options={"idempotency_key": request.idempotency_key},
            )
        except CardError as error:
            return self._declined_off_session(error, request.idempotency_key)
        except (StripeError, AmountNotPayable) as error:
            logger.warning("stripe: off-session charge failed: %s", getattr(error, "code", error))
            return ChargeResult(ChargeStatus.DECLINED, reason="The saved card could not be charged")
        intent = _intent(created)
        if intent.status == "succeeded":
            return ChargeResult(ChargeStatus.PAID, reference=intent.id, saved_method=request.saved_method)
        if intent.status == "requires_action":
            return ChargeResult(
                ChargeStatus.DECLINED,
                reference=intent.id,
                reason="The bank asks the cardholder to authenticate this payment",
                redirect_url=self._authentication_url(request.idempotency_key, plain(created)),
            )
        return ChargeResult(ChargeStatus.DECLINED, reference=intent.id, reason=intent.error or "Declined")

    def _declined_off_session(self, error: Any, idempotency_key: str) -> ChargeResult:
        body = (error.json_body or {}).get("error", {}) if error.json_body else {}
        intent = body.get("payment_intent") or {}
        if error.code == "authentication_required":
            return ChargeResult(
                ChargeStatus.DECLINED,
                reference=intent.get("id", ""),
                reason="The bank asks the cardholder to authenticate this payment",
                redirect_url=self._authentication_url(idempotency_key, intent) if intent.get("id") else "",
            )
        return ChargeResult(
            ChargeStatus.DECLINED, reference=intent.get("id", ""), reason=error.user_message or "Declined"
        )

    def _authentication_url(self, idempotency_key: str, intent: dict[str, Any]) -> str:
        """Where the player completes the charge: our page (Stripe.js confirms the intent with
        the saved card, its bank's check included), else Stripe's `next_action` URL, if any."""
        if self.authentication_page:
            return f"{self.authentication_page}/{idempotency_key}"
        return _next_action_url(intent)

    def refund(self, reference: str, amount: Decimal) -> bool:
        """Refund the PaymentIntent `reference` in full (one refund per payment: the idempotency
        key is the intent's); True when Stripe accepted it or it was refunded already."""
        from stripe import InvalidRequestError, StripeError

        try:
            self._client().v1.refunds.create(
                params={"payment_intent": reference}, options={"idempotency_key": f"refund-{reference}"}
            )
        except InvalidRequestError as error:
            if error.code == "charge_already_refunded":
                return True
            logger.warning("stripe: refund refused: %s", error.code)
            return False
        except StripeError as error:
            logger.warning("stripe: refund failed: %s", error.code)
            return False
        return True

    def refund_part(self, reference: str, amount: Decimal, currency: str, key: str) -> str | None:
        """Refund `amount` of the PaymentIntent `reference` (a partial refund; `key`: its
        idempotency key, one per refund the store records); the refund's id, or None when Stripe
        did not accept it."""
        from stripe import StripeError

        try:
            refund = self._client().v1.refunds.create(
                params={"payment_intent": reference, "amount": to_minor_units(amount, currency)},
                options={"idempotency_key": key},
            )
        except StripeError as error:
            logger.warning("stripe: partial refund refused: %s", error.code)
            return None
        return str(refund.id)

    def refunds_of(self, reference: str) -> list[tuple[str, Decimal]]:
        """The refunds of the PaymentIntent `reference`, oldest first: (refund id, amount)."""
        listed = self._client().v1.refunds.list(params={"payment_intent": reference, "limit": 100})
        found = [
            (int(r.created or 0), str(r.id), from_minor_units(int(r.amount), str(r.currency)))
            for r in listed.data
            if r.status in ("succeeded", "pending")
        ]
        return [(rid, amount) for _, rid, amount in sorted(found)]

    def refund_attempt(self, attempt_key: str) -> bool:
        """Give back what the attempt's PaymentIntent took, or cancel it while it can still be
        paid. Not a PaymentIntent (a sandbox attempt), or nothing to give back: True."""
        from stripe import StripeError

        if not attempt_key.startswith("pi_"):
            return True
        try:
            intent = self.intent(attempt_key)
        except StripeError as error:
            logger.warning("stripe: cannot read the attempt's PaymentIntent: %s", error.code)
            return False
        if intent.status in _OPEN:
            return self._cancel_open(intent)
        if intent.status == "succeeded":
            return intent.amount_refunded >= intent.amount or self.refund(intent.id, Decimal(0))
        return intent.status == "canceled"  # processing: not refundable yet (the store must)

    def _cancel_open(self, intent: StripeIntent) -> bool:
        from stripe import StripeError

        if intent.status not in _OPEN:
            return True
        try:
            self._client().v1.payment_intents.cancel(intent.id)
        except StripeError as error:
            logger.warning("stripe: cannot cancel an open PaymentIntent: %s", error.code)
            return False
        return True


def _next_action_url(intent: dict[str, Any]) -> str:
    action = intent.get("next_action") or {}
    return str((action.get("redirect_to_url") or {}).get("url") or "")
