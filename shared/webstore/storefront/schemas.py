"""The storefront interface's wire contracts (SPEC.md, COMPAT.md): what clients read, field for
field (what they send is in `storefront.requests`). Domain models become these in
`storefront.views`."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Generic, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    PlainSerializer,
    model_serializer,
)

# SPEC types money as "float": a JSON number, not a string.
Money = Annotated[Decimal, PlainSerializer(float, return_type=float, when_used="json")]
T = TypeVar("T")


class Wire(BaseModel):
    """A response model compiled on first use (defer_build): a route builds the few it answers
    with, not the interface's every model at import (the cold start). Request bodies are in
    `storefront.requests`, compiled at import: FastAPI reads them as body parameters, and a
    deferred one is then compiled with the parameter's alias, which pydantic warns has no
    effect; there, a route that reads (and the shop's pages) does not compile them."""

    model_config = ConfigDict(defer_build=True)


# --- responses -----------------------------------------------------------------------------


class Envelope(Wire, Generic[T]):
    data: T


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


class BasketCoupon(Wire):
    code: str
    coupon_code: str  # what existing clients read (COMPAT.md); same value as `code`


class BasketGiftCard(Wire):
    card_number: str


class InBasket(Wire):
    quantity: int
    price: Money
    gift_username_id: str | None
    gift_username: str | None


class BasketPackage(Wire):
    id: int
    ident: str
    description: str
    image: str | None
    name: str
    slug: str
    in_basket: InBasket
    type: str
    revenue_share: list[dict[str, Any]]
    is_recurring: bool


class BasketLinks(Wire):
    """`checkout` only while unpaid, `payment` only once paid: absent keys, not nulls (SPEC)."""

    checkout: str | None = None
    payment: str | None = None

    @model_serializer
    def _present_only(self) -> dict[str, str]:
        return {k: v for k, v in (("checkout", self.checkout), ("payment", self.payment)) if v is not None}


class Basket(Wire):
    id: str
    ident: str
    complete: bool
    email: str | None
    username: str | None
    coupons: list[BasketCoupon]
    giftcards: list[BasketGiftCard]
    creator_code: str
    cancel_url: str
    complete_url: str | None
    complete_auto_redirect: bool
    country: str
    ip: str
    username_id: int | None
    base_price: Money
    sales_tax: Money
    total_price: Money
    currency: str
    packages: list[BasketPackage]
    custom: dict[str, Any] | None
    links: BasketLinks


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
