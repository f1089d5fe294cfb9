"""The storefront interface's wire contracts (SPEC.md, COMPAT.md): what clients read, field for
field (what they send is in `storefront.requests`). Domain models become these in
`storefront.views`."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_serializer

from webstore.storefront.basket_wire import (
    Basket,
    BasketCoupon,
    BasketGiftCard,
    BasketLinks,
    BasketPackage,
    InBasket,
)
from webstore.storefront.wire import Envelope, Money, Wire

# The base and the basket's shapes live apart (a basket's routes load only those); every shape
# is still `schemas.<Name>`.
__all__ = [
    "Basket",
    "BasketCoupon",
    "BasketGiftCard",
    "BasketLinks",
    "BasketPackage",
    "Envelope",
    "InBasket",
    "Money",
    "Wire",
]


class Webstore(Wire):
    id: int
    description: str
    name: str
    webstore_url: str
    currency: str
    lang: str
    logo: str | None
    platform_type: str
    platform_type_id: str
    disabled: bool
    created_at: str
    supports_usernames: bool
    supports_gifting: bool


class CMSPage(Wire):
    id: int
    created_at: str
    updated_at: str
    account_id: int
    title: str
    slug: str
    private: bool
    hidden: bool
    disabled: bool
    sequence: bool
    content: str


class CategoryRef(Wire):
    id: int
    name: str


class PackageMedia(Wire):
    type: str
    name: str | None
    url: str
    featured: bool
    primary: bool


class IdentUser(Wire):
    """The username lookup's answer, as the platform's lookup service shapes it (the starter's
    `User` type): `id` is the player's platform id (a Minecraft UUID without dashes)."""

    id: str
    username: str
    created_at: str
    updated_at: str
    cache_expire: str
    meta: dict[str, Any]


class PackageVariableOption(Wire):
    """A dropdown variable's choice: `{id, name, value, price, percentage}` as the platform's
    shops read it. Our options change no price (`price` and `percentage` are 0)."""

    id: int
    name: str
    value: str
    price: Money
    percentage: Money


class PackageVariable(Wire):
    """A variable the buyer fills in (`variable_data.{identifier}`): `{id, identifier,
    description, type, options?}` as the platform's published package shape has it: free text
    is `type: "text"` without `options`, a dropdown `type: "dropdown"` with them."""

    id: int
    identifier: str
    description: str
    type: str
    options: list[PackageVariableOption] | None = None

    @model_serializer(mode="wrap")
    def _options_only_for_dropdowns(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and data.get("options") is None:
            data.pop("options", None)
        return data


class Package(Wire):
    id: int
    ident: str
    name: str
    description: str
    image: str | None
    type: str
    category: CategoryRef
    base_price: Money
    sales_tax: Money
    total_price: Money
    currency: str
    prorate_price: Money | None = None
    discount: Money
    disable_quantity: bool
    disable_gifting: bool
    expiration_date: str | None
    media: list[PackageMedia]
    order: int
    slug: str
    user_limit: int
    creator_meta_data: dict[str, Any]
    options: list[str]
    # Objects, as the platform's package shape and the shops built on it read them; left out
    # when the package has none (an empty list is truthy in JS: shops would open an empty
    # variables step). docs/compatibility.md.
    variables: list[PackageVariable] | None = None
    created_at: str
    updated_at: str
    vip_status: str | None = None

    @model_serializer(mode="wrap")
    def _variables_only_when_any(self, handler: Any) -> Any:
        data = handler(self)
        if isinstance(data, dict) and not data.get("variables"):
            data.pop("variables", None)
        return data


class TierStatus(Wire):
    id: int
    description: str


class PendingDowngrade(Wire):
    id: int
    name: str


class Tier(Wire):
    id: int
    created_at: str
    username_id: str
    package: Package
    active: bool
    recurring_payment_reference: str
    next_payment_date: str | None
    status: TierStatus
    pending_downgrade_package: PendingDowngrade | None


class Category(Wire):
    id: int
    name: str
    slug: str | None
    parent: Category | None
    tiered: bool
    active_tier: Tier | None = None
    description: str
    packages: list[Package] | None = None
    order: int
    display_type: str
    image_url: str | None
    dynamic: bool


class AuthLink(Wire):
    name: str
    url: str


class Message(Wire):
    message: str


class Success(Wire):
    success: bool
    message: str


class TierChange(Wire):
    """PATCH /tiers/{id}: the spec's `{success, message}`; an upgrade to be paid at a checkout
    (no saved payment method) adds `links: {checkout}` (an extension) and is not a success yet."""

    success: bool
    message: str
    checkout: str | None = None

    @model_serializer
    def _shape(self) -> dict[str, Any]:
        shown: dict[str, Any] = {"success": self.success, "message": self.message}
        if self.checkout is not None:
            shown["links"] = {"checkout": self.checkout}
        return shown


# --- the sidebar (COMPAT names the modules only; shapes decided in docs/players.md) ----------


class TopCustomer(Wire):
    header: str
    username: str
    username_id: str  # the platform id (Minecraft: UUID without dashes)
    total: Money
    currency: str
    month: str


class PackageName(Wire):
    name: str


class RecentPayment(Wire):
    username: str
    username_id: str
    package: PackageName
    created_at: str | None
    price: Money | None
    amount: Money
    currency: str
    date: str


class RecentPayments(Wire):
    header: str
    payments: list[RecentPayment]


class Goal(Wire):
    """community_goal: the spec's keys (header, bar_style, …) and the goal itself."""

    header: str
    bar_style: str
    bar_animated: bool
    percentage: float
    total_payments: Money | None
    times_achieved: int
    id: int
    name: str
    description: str
    image: str
    target: Money
    current: Money
    status: str
    repeatable: bool


class PaymentGoal(Wire):
    header: str
    bar_style: str
    bar_animated: bool
    percentage: float
    total: Money
    target: Money
    month: str
    current: Money
    currency: str


class TextBox(Wire):
    header: str
    text: str  # the spec's key
    content: str  # the same HTML (earlier name)


class FeaturedPackage(Wire):
    header: str
    package: Package


class GiftCardBalance(Wire):
    """The shop renders a card-number form; the module tells it which currency balances are in."""

    header: str
    currency: str


class ServerStatusPlayers(Wire):
    online: int
    max: int


class ServerStatus(Wire):
    """The game server's address as configured. Lambda does not ping game servers: `online` is
    false and `players` null; the shop may ping `hostname:port` itself."""

    header: str
    hostname: str
    port: int
    online: bool
    players: ServerStatusPlayers | None
    address: str


ModuleData = (
    TopCustomer
    | RecentPayments
    | Goal
    | PaymentGoal
    | TextBox
    | FeaturedPackage
    | GiftCardBalance
    | ServerStatus
)


class Module(Wire):
    """The headless spec's Module (`id`, `type`, `start_time`, `end_time`, `data`), with the
    module's `title` and `order` as configured."""

    id: int
    type: str
    start_time: str
    end_time: str | None
    title: str
    order: int
    data: ModuleData


class StripeWebhookReceived(BaseModel):
    """What POST /webhooks/stripe/{token} answers Stripe: the event and what became of it."""

    received: bool
    id: str
    type: str
    result: str  # handled | duplicate | ignored
