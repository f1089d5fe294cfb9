"""What a store sells and how: the entities an operator sets up (by the catalog import).

These models are both the catalog file's schema and what the repository stores. They hold
domain values only (Decimal money, datetimes); the API shapes live in `webstore.views`.
"""

import itertools
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Annotated, Literal, Self

from pydantic import Field, HttpUrl, ValidationInfo, field_validator, model_validator

from webstore.gateway_settings import StoredGateways
from webstore.model import Int32, Name
from webstore.model import Model as Model  # also imported from here, as the base of stored models
from webstore.money import MINOR_UNITS
from webstore.servers import Server as Server  # also imported from here (its home: webstore.servers)

Slug = Annotated[str, Field(min_length=1, max_length=120, pattern=r"^[a-z0-9][a-z0-9\-_]*$")]
Html = Annotated[str, Field(max_length=100_000)]
Amount = Annotated[Decimal, Field(ge=0, max_digits=14, decimal_places=4)]
Percent = Annotated[Decimal, Field(ge=0, le=100, max_digits=7, decimal_places=4)]
HexColor = Annotated[str, Field(pattern=r"^#[0-9a-fA-F]{6}$")]  # "#1a5fb4"
WebUrl = Annotated[str, Field(max_length=2000, pattern=r"^https?://[^\s<>\"']+$")]  # an http(s) link


class PackageType(StrEnum):
    SINGLE = "single"
    SUBSCRIPTION = "subscription"


class CommandTrigger(StrEnum):
    """The payment event that queues a package command."""

    PURCHASE = "purchase"
    EXPIRY = "expiry"
    REFUND = "refund"
    CHARGEBACK = "chargeback"
    RENEWAL = "renewal"


class DiscountType(StrEnum):
    PERCENTAGE = "percentage"
    VALUE = "value"


class TaxMode(StrEnum):
    NONE = "none"
    EXCLUSIVE = "exclusive"  # tax is added on top of the price
    INCLUSIVE = "inclusive"  # the price already contains the tax


class TaxCalculation(StrEnum):
    FLAT = "flat"  # one rate for every buyer (`rate`)
    MANUAL = "manual"  # the owner's rate per buyer country (`rates`)
    STRIPE_TAX = "stripe_tax"  # Stripe Tax decides (the store's registrations in Stripe)


CountryCode = Annotated[str, Field(pattern=r"^[A-Z]{2}$")]


class Tax(Model):
    """How a store charges tax (docs/tax-model.md): `mode` tells whether prices are before tax
    (exclusive) or contain it (inclusive), `calculation` where the rate comes from."""

    mode: TaxMode = TaxMode.NONE
    rate: Percent = Decimal(0)
    calculation: TaxCalculation = TaxCalculation.FLAT
    # manual: ISO country code -> percent; a country not listed pays 0.
    rates: dict[CountryCode, Percent] = Field(default={}, max_length=300)
    # The seller's country: what a basket is priced for until the buyer's is known, and what a
    # business buyer's VAT ID is compared with (reverse charge across EU borders).
    origin_country: CountryCode | None = None
    reverse_charge: bool = True

    @field_validator("rates", mode="before")
    @classmethod
    def _upper_countries(cls, value: object) -> object:
        if isinstance(value, dict):
            return {str(k).strip().upper(): v for k, v in value.items()}
        return value

    @property
    def charged(self) -> bool:
        return self.mode is not TaxMode.NONE

    @property
    def inclusive(self) -> bool:
        return self.mode is TaxMode.INCLUSIVE


class Seller(Model):
    """Who sells, as the invoices and credit notes name them (docs/tax.md): the owner's legal
    name, postal address, country and tax number (a VAT ID in the EU). Blank until the owner
    fills them in; the invoice says so rather than inventing them."""

    legal_name: str = Field(default="", max_length=200)
    address: str = Field(default="", max_length=500)  # lines separated by newlines
    country: str = ""  # ISO 3166-1 alpha-2, e.g. FR (checked below)
    tax_number: str = Field(default="", max_length=40)

    @field_validator("country")
    @classmethod
    def _country(cls, value: str) -> str:
        value = value.strip().upper()
        if value and not (len(value) == 2 and value.isalpha()):
            raise ValueError("a two-letter country code such as FR")
        return value


class SidebarModule(Model):
    type: Literal[
        "top_customer",
        "recent_payments",
        "community_goal",
        "payment_goal",
        "textbox",
        "featured_package",
        "giftcard_balance",
        "server_status",
    ]
    title: str = ""
    order: int = 0
    # Module-specific settings: textbox `content`, featured_package `package_id`,
    # community_goal `goal_id`, payment_goal `target`, recent_payments `limit`, server_status `address`.
    settings: dict[str, str | int | float | bool | None] = {}

    @field_validator("settings", mode="before")
    @classmethod
    def _stored_numbers(cls, value: object) -> object:
        """Numbers read back from the table are Decimals: whole ones are ints again (a package
        id stays 11, not 11.0), so a store written back as a file reads as it was written."""
        if not isinstance(value, dict):
            return value
        return {
            k: (int(v) if v == v.to_integral_value() else float(v)) if isinstance(v, Decimal) else v
            for k, v in value.items()
        }


class StoreProfile(Model):
    """What an operator sets about a store (the catalog file's `store` section)."""

    id: Int32
    name: Name
    description: Html = ""
    webstore_url: str = ""
    currency: str = Field(default="USD", min_length=3, max_length=3)
    lang: str = "en"
    logo: str | None = None
    platform_type: str = "Minecraft (Java Edition)"
    platform_type_id: str = "minecraft"
    game_type: str = "Minecraft"
    # Minecraft online mode: players are the Mojang accounts their names resolve to (real UUID
    # and casing, webstore.identity); false: offline-mode identities (the name's offline UUID).
    online_mode: bool = False
    # Bedrock players through Geyser/Floodgate (docs/decisions.md, "Bedrock names"): the
    # proxy's `username-prefix` ("." by default; 1 to 8 printable ASCII characters, no space,
    # letters allowed: "BE_"); "" = Java names only. A name starting with it is a Bedrock
    # player's: the prefix, then their Xbox gamertag (webstore.repo.users); under a prefix with
    # letters, one that is a Java name too (`BE_Steve`) may be either player's.
    bedrock_prefix: str = Field(default="", json_schema_extra={"maxLength": 8, "pattern": "^[!-~]*$"})
    # Floodgate without a prefix (`username-prefix: ""`): a bare gamertag is a Bedrock player's
    # too; a name valid for both is a Java account's if one has it (online mode), else theirs.
    # Floodgate has one prefix: this and `bedrock_prefix` are exclusive.
    bedrock_unprefixed: bool = False
    log_events: bool = False
    disabled: bool = False
    supports_usernames: bool = True
    supports_gifting: bool = True
    tax: Tax = Field(default_factory=Tax)
    seller: Seller = Field(default_factory=Seller)
    # Hosts (besides webstore_url's) that auth and checkout may send a player back to.
    allowed_return_hosts: list[str] = []
    basket_ttl_seconds: int = Field(default=7 * 24 * 3600, ge=300, le=90 * 24 * 3600)
    emit_basket_abandoned: bool = False
    # Days after a renewal date on which a declined renewal is tried again; after the last one
    # fails the subscription expires (docs/subscriptions.md).
    renewal_retry_days: list[Annotated[int, Field(ge=1, le=60)]] = Field(
        default_factory=lambda: [1, 3, 5], max_length=10
    )
    sidebar: list[SidebarModule] = []
    # Branding of the hosted pages (auth, checkout, receipt): `logo` above is the logo's URL;
    # colours as #rrggbb (the pages pick readable text on them); the links the checkout shows.
    primary_color: HexColor | None = None
    accent_color: HexColor | None = None
    terms_url: WebUrl | None = None
    refund_policy_url: WebUrl | None = None

    @field_validator("bedrock_prefix")
    @classmethod
    def _floodgate_prefix(cls, value: str) -> str:
        if len(value) > 8 or any(not "!" <= c <= "~" for c in value):
            raise ValueError(
                f"{value[:20]!r} is not a Floodgate username-prefix here: 1 to 8 printable ASCII"
                ' characters (letters, digits, symbols such as . or _), no space; "" for none'
            )
        return value

    @field_validator("bedrock_unprefixed")
    @classmethod
    def _one_bedrock_prefix(cls, value: bool, info: ValidationInfo) -> bool:
        if value and info.data.get("bedrock_prefix"):
            raise ValueError(
                "Floodgate has one username-prefix: set either bedrock_prefix (Bedrock names start"
                " with it) or bedrock_unprefixed (they do not), the one your proxy uses"
            )
        return value

    @field_validator("renewal_retry_days")
    @classmethod
    def _increasing_days(cls, value: list[int]) -> list[int]:
        if any(later <= earlier for earlier, later in itertools.pairwise(value)):
            raise ValueError("retry days must increase (days after the renewal date, e.g. [1, 3, 5])")
        return value

    @field_validator("currency")
    @classmethod
    def _known_currency(cls, value: str) -> str:
        value = value.upper()
        if value not in MINOR_UNITS:
            raise ValueError(f"unsupported currency {value!r}")
        return value


class Effective(Model):
    """What a sale or coupon applies to."""

    type: Literal["package", "category", "all", "cart"] = "all"
    packages: list[int] = []
    categories: list[int] = []


class Discount(Model):
    type: DiscountType = DiscountType.PERCENTAGE
    percentage: Percent = Decimal(0)
    value: Amount = Decimal(0)


class Sale(Model):
    id: Int32
    name: Name
    effective: Effective = Field(default_factory=Effective)
    discount: Discount
    start: datetime
    expire: datetime
    order: int = 0


class ShopBrand(Model):
    """The shop's look (panel → Shop → Look) as every hosted page wears it: a copy kept on the
    store item, written in the same transaction as the shop's live theme, so the hosted pages
    (auth, checkout, receipt, manage, errors) have it in the read of the store they already
    make. "" keeps the catalog's own (`logo`, `primary_color`, `accent_color`; no favicon)."""

    logo: str = ""
    favicon: str = ""
    primary_color: str = ""
    accent_color: str = ""


class Store(StoreProfile):
    """The store (account) and its settings: one item, read with every storefront request."""

    created_at: datetime
    # Sales are few and priced into every read, so they ride in the store item.
    sales: list[Sale] = []
    public_token: str
    checkout_key_hash: str
    # The payment gateways (catalog file `gateways`), secrets sealed (webstore.gateway_settings).
    gateways: StoredGateways = Field(default_factory=StoredGateways)
    # A Steam store's Steam Web API key, sealed (webstore.secret_box): with it the Steam sign-in
    # reads the player's persona name. Write-only (the panel's Settings), never in a catalog file.
    steam_api_key_sealed: str | None = None
    # The shop's look on the hosted pages (kept by an import: the shop's theme owns it).
    shop_brand: ShopBrand = Field(default_factory=ShopBrand)


class Category(Model):
    id: Int32
    name: Name
    slug: Slug | None = None
    parent_id: int | None = None
    tiered: bool = False
    dynamic: bool = False
    description: Html = ""
    order: int = 0
    display_type: Literal["list", "grid"] = "list"
    image_url: str | None = None


class PackageMedia(Model):
    type: Literal["video", "image"] = "image"
    name: str | None = None
    url: str
    featured: bool = False
    primary: bool = False


class PackageCommand(Model):
    """A command a package queues on one server when its trigger happens."""

    server_id: Int32
    command: Annotated[str, Field(min_length=1, max_length=2000)]
    trigger: CommandTrigger = CommandTrigger.PURCHASE
    require_online: bool = False
    delay: int = Field(default=0, ge=0, le=86_400 * 30)
    slots: int = Field(default=0, ge=0, le=100)


class VariableOption(Model):
    """One choice of a dropdown variable: `name` is what the buyer sees, `value` what the
    variable then holds (what fills `{identifier}` in the package's commands)."""

    name: Name
    value: Annotated[str, Field(min_length=1, max_length=500)]


class Package(Model):
    id: Int32
    category_id: Int32
    name: Name
    description: Html = ""
    image: str | None = None
    type: PackageType = PackageType.SINGLE
    price: Amount
    order: int = 0
    slug: Slug | None = None
    disabled: bool = False
    disable_quantity: bool = False
    disable_gifting: bool = False
    user_limit: int = Field(default=0, ge=0)  # 0: no limit
    expiration_date: datetime | None = None
    expiry_length: int = Field(default=0, ge=0)  # subscriptions: billing period length
    expiry_period: Literal["day", "month", "year"] = "month"
    media: list[PackageMedia] = []
    creator_meta_data: dict[str, str] = {}
    options: list[str] = []
    variables: list[str] = []
    # Dropdown variables: an identifier of `variables` -> its choices, in order (docs/catalog.md).
    # A variable not named here is free text.
    variable_options: dict[str, list[VariableOption]] = {}
    commands: list[PackageCommand] = []
    created_at: datetime
    updated_at: datetime

    @model_validator(mode="after")
    def _options_of_its_variables(self) -> Self:
        for name, options in self.variable_options.items():
            if name not in self.variables:
                raise ValueError(f"variable_options.{name}: not one of the package's variables")
            values = [option.value for option in options]
            if not values or len(set(values)) != len(values):
                raise ValueError(f"variable_options.{name}: one or more options, each value once")
        return self

    def variable_value(self, name: str, given: str) -> str | None:
        """What variable `name` holds when a buyer sent `given`: free text as given; for a
        dropdown, the option whose value it is, else the option whose id (its position from 1,
        as the storefront numbers them) it is. None: no option of the dropdown."""
        options = self.variable_options.get(name)
        if options is None:
            return given
        by_value = {option.value: option.value for option in options}
        by_id = {str(i): option.value for i, option in enumerate(options, start=1)}
        return by_value.get(given) or by_id.get(given.strip())

    @property
    def ident(self) -> str:
        from webstore.keys import package_ident

        return package_ident(self.category_id, self.id)

    @property
    def server_ids(self) -> list[int]:
        return sorted({c.server_id for c in self.commands})


class BasketType(StrEnum):
    SINGLE = "single"
    SUBSCRIPTION = "subscription"
    BOTH = "both"


class Coupon(Model):
    id: Int32
    code: Annotated[str, Field(min_length=1, max_length=64)]
    effective: Effective = Field(default_factory=lambda: Effective(type="cart"))
    discount: Discount
    redeem_unlimited: bool = True
    expire_never: bool = True
    expire_limit: int = Field(default=0, ge=0)  # total redemptions, when not unlimited
    expire_date: datetime | None = None
    start_date: datetime | None = None
    basket_type: BasketType = BasketType.BOTH
    minimum: Amount = Decimal(0)
    # 0: each package; 1: basket total before sales; 2: basket total after sales.
    discount_application_method: Literal[0, 1, 2] = 0
    user_limit: int = Field(default=0, ge=0)  # redemptions per player; 0: no limit
    username: str | None = None
    note: str = ""
    created_at: datetime


class GiftCard(Model):
    id: Int32
    card_number: Annotated[str, Field(min_length=4, max_length=64)]
    balance: Amount
    starting_balance: Amount
    currency: str = "USD"
    note: str = ""
    void: bool = False
    expires_at: datetime | None = None
    created_at: datetime


class CreatorCode(Model):
    code: Annotated[str, Field(min_length=1, max_length=64)]
    name: Name
    wallet_ref: str = ""
    percentage: Percent = Decimal(0)  # share of the payment credited to the creator


class Page(Model):
    id: Int32
    title: Name
    slug: Slug
    content: Html = ""
    private: bool = False
    hidden: bool = False
    disabled: bool = False
    sequence: bool = False
    created_at: datetime
    updated_at: datetime


class GoalStatus(StrEnum):
    ACTIVE = "active"
    COMPLETED = "completed"
    DISABLED = "disabled"


class CommunityGoal(Model):
    id: Int32
    name: Name
    description: Html = ""
    image: str = ""
    target: Amount
    current: Amount = Decimal(0)
    repeatable: bool = False
    last_achieved: datetime | None = None
    times_achieved: int = 0
    status: GoalStatus = GoalStatus.ACTIVE
    sale: int = 0
    created_at: datetime
    updated_at: datetime


class WebhookEndpoint(Model):
    id: Int32
    url: HttpUrl
    # Which webhook types it receives; empty: all of them.
    events: list[str] = []
    # Signing secret. HMAC needs it readable, so it is stored sealed (webstore.secret_box), not hashed.
    secret: str
    validated: bool = False
    # Off: receives nothing (the panel's "disable"); kept with its log and secret.
    disabled: bool = False
    # What it receives: "tebex", the signed webhook envelope; "discord", a Discord channel
    # webhook URL that gets purchases as Discord embeds (webstore.discord.embeds; no handshake).
    format: Literal["tebex", "discord"] = "tebex"
