"""A basket as the storefront interface shows it (SPEC.md, COMPAT.md): its wire shapes and the
mapper from the domain basket. Apart from `schemas` and `views`, so that the basket's routes
(read, create, change) load these few shapes, not the interface's every one."""

from typing import TYPE_CHECKING, Any

from pydantic import model_serializer

from webstore.catalog import PackageType
from webstore.repo import plain_json
from webstore.storefront.wire import Money, Wire

if TYPE_CHECKING:
    from webstore.basket import Basket as DomainBasket
    from webstore.settings import Settings


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


def basket_view(basket: "DomainBasket", settings: "Settings") -> Basket:
    base = f"{settings.storefront_url}/checkout/{basket.ident}"
    return Basket(
        id=basket.ident,
        ident=basket.ident,
        complete=basket.complete,
        email=basket.email,
        username=basket.username,
        coupons=[BasketCoupon(code=c.code, coupon_code=c.code) for c in basket.coupons],
        giftcards=[BasketGiftCard(card_number=n) for n in basket.giftcards],
        creator_code=basket.creator_code,
        cancel_url=basket.cancel_url,
        complete_url=basket.complete_url,
        complete_auto_redirect=basket.complete_auto_redirect,
        country=basket.country,
        ip=basket.ip,
        username_id=basket.username_id,
        base_price=basket.base_price,
        sales_tax=basket.sales_tax,
        total_price=basket.total_price,
        currency=basket.currency,
        packages=[
            BasketPackage(
                id=line.package_id,
                ident=line.ident,
                description=line.description,
                image=line.image or "",  # a string (published BasketPackage): shops draw it as is
                name=line.name,
                slug=line.slug,
                in_basket=InBasket(
                    quantity=line.quantity,
                    price=line.unit_price,
                    gift_username_id=line.gift_username_id,
                    gift_username=line.gift_username,
                ),
                type=line.type.value,
                revenue_share=[],
                is_recurring=line.type is PackageType.SUBSCRIPTION,
            )
            for line in basket.lines
        ],
        custom=plain_json(basket.custom) if basket.custom is not None else None,
        links=BasketLinks(payment=f"{base}/receipt") if basket.paid else BasketLinks(checkout=base),
    )
