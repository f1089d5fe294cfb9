"""What a shop template sees (docs/shop.md, "Variables"): plain data built by the storefront's
own computations (`storefront.shown`: prices, sales, tiers, the sidebar; the basket's totals as
the checkout computes them), never a house object nor one of the storefront's wire models.
Owner HTML (descriptions, the text module, custom pages) is sanitised here; whatever a player
typed stays a plain string, escaped by the templates' autoescape.
"""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from webstore.catalog import Category, DiscountType, Package, PackageType, Sale, Store
from webstore.html.owner import sanitize, translate
from webstore.money import round_money, symbol
from webstore.pricing import PricingContext, active_sales
from webstore.shop.i18n import html_lang
from webstore.shop.look import branded
from webstore.shop.reads import ShopData
from webstore.shop.translations import page_texts
from webstore.storefront.colours import theme_style
from webstore.storefront.shown import (
    SidebarData,
    as_json,
    category_packages,
    int_setting,
    package_data,
    prorate_price,
    tier_data,
    visible_packages,
)

if TYPE_CHECKING:
    from webstore.storefront import schemas

LEGAL_SLUGS = ("terms", "privacy", "refunds", "imprint")
# The hosted "Find my subscriptions" form (webstore.subscriptions.find_by_email.PAGE_PATH, not
# imported: it would load the mail stack into every shop page).
FIND_SUBSCRIPTIONS_PATH = "/subscriptions/find"
PERIODS = {"day": ("day", "days"), "month": ("month", "months"), "year": ("year", "years")}


class Urls(NamedTuple):
    """The shop's own addresses (relative: the shop is served at its domain's root)."""

    home: str = "/"
    basket: str = "/basket"
    login: str = "/login"
    logout: str = "/logout"
    checkout: str = "/checkout"
    add: str = "/basket/packages"
    quantity: str = "/basket/quantity"
    remove: str = "/basket/remove"
    coupons: str = "/basket/coupons"
    giftcards: str = "/basket/giftcards"
    creator_code: str = "/basket/creator-code"
    giftcard_balance: str = "/gift-card"

    @staticmethod
    def category(category: Category) -> str:
        return f"/category/{category.slug or category.id}"

    @staticmethod
    def package(package: Package | schemas.Package) -> str:
        return f"/package/{package.id}"

    @staticmethod
    def page(slug: str) -> str:
        return f"/page/{slug}"


URLS = Urls()


def money(amount: Decimal, currency: str) -> Decimal:
    return round_money(Decimal(amount), currency)


class Builder:
    """Template variables of one page, from the page's one read."""

    def __init__(self, data: ShopData, *, csrf: str, assets: Mapping[str, str]) -> None:
        self.data = data
        self.store: Store = data.view.store
        self.view = data.view
        assert data.now is not None
        self.now = data.now
        self.ctx = PricingContext(store=self.store, sales=self.store.sales, now=self.now)
        self.csrf = csrf
        self.assets = dict(assets)
        self.translations = page_texts(data.theme, data.language)

    # --- common to every page ---

    def common(self, title: str) -> dict[str, Any]:
        return {
            "title": title,
            "store": self.store_vars(),
            "currency": {"iso_4217": self.store.currency, "symbol": symbol(self.store.currency)},
            "categories": self.category_tree(),
            "pages": self.page_links(),
            "legal": self.legal_links(),
            "basket": self.basket_vars(),
            "modules": self.modules(),
            "csrf": self.csrf,
            "urls": URLS._asdict() | {"find_subscriptions": self.find_subscriptions_url()},
            "assets": self.assets,
            "error": "",
            "notice": "",
            "translations": self.translations,
        }

    def find_subscriptions_url(self) -> str:
        """The hosted form where a player who lost a manage link asks for one by e-mail."""
        return f"{self.data.storefront_url.rstrip('/')}{FIND_SUBSCRIPTIONS_PATH}/{self.store.public_token}"

    def store_vars(self) -> dict[str, Any]:
        look = self.data.theme.look
        store = branded(self.store, look)  # the owner's look (panel → Shop → Look) over the catalog's
        sales = active_sales(store.sales, self.now)
        return {
            "id": store.id,
            "name": store.name,
            "description": sanitize(store.description),
            "logo": _http_url(store.logo),
            "favicon": _http_url(look.favicon),
            "hero_text": look.hero_text,
            "after_add": look.after_add or "basket",
            "header_style": look.header_style or "banner",
            "prices_shown": not look.guest_prices or self._logged_in(),
            "webstore_url": store.webstore_url,
            "lang": html_lang(self.data.language),
            "supports_gifting": store.supports_gifting,
            "sale_banner": look.sale_banner or (self._sale_banner(sales[0]) if sales else ""),
            "theme_style": theme_style(store),
            "terms_url": store.terms_url or "",
            "refund_policy_url": store.refund_policy_url or "",
        }

    def category_tree(self) -> list[dict[str, Any]]:
        ordered = sorted(self.view.categories, key=lambda c: (c.order, c.id))
        top = [c for c in ordered if not c.parent_id or self.view.category(c.parent_id) is None]

        def node(category: Category) -> dict[str, Any]:
            return {
                "id": category.id,
                "name": category.name,
                "slug": category.slug or str(category.id),
                "url": URLS.category(category),
                "tiered": category.tiered,
                "subcategories": [node(c) for c in ordered if c.parent_id == category.id],
            }

        return [node(c) for c in top]

    def page_links(self) -> list[dict[str, Any]]:
        """The custom pages of the menu (the legal ones are in the footer: `legal_links`)."""
        return [
            {"id": p.id, "title": p.title, "slug": p.slug, "url": URLS.page(p.slug)}
            for p in sorted(self.view.pages, key=lambda p: p.id)
            if not (p.disabled or p.hidden or p.private) and p.slug not in LEGAL_SLUGS
        ]

    def legal_links(self) -> list[dict[str, Any]]:
        """The legal pages, in the footer of every page: the store's pages whose slug is
        `terms`, `privacy`, `refunds` or `imprint` (in that order; a hidden one too, as its
        address must stay reachable), else the store's `terms_url`/`refund_policy_url` (no
        title: the theme names them)."""
        by_slug = {p.slug: p for p in self.view.pages if not (p.disabled or p.private)}
        links = []
        for slug in LEGAL_SLUGS:
            page = by_slug.get(slug)
            if page is not None:
                links.append({"kind": slug, "title": page.title, "url": URLS.page(slug)})
            elif slug == "terms" and self.store.terms_url:
                links.append({"kind": slug, "title": "", "url": self.store.terms_url})
            elif slug == "refunds" and self.store.refund_policy_url:
                links.append({"kind": slug, "title": "", "url": self.store.refund_policy_url})
        return links

    def modules(self) -> list[dict[str, Any]]:
        featured = {p.id: p for p in self.view.packages}
        shown = []
        for module in SidebarData(self.view, featured, self.ctx).modules():
            data = as_json(module["data"])
            if module["type"] == "textbox" and isinstance(data, dict):
                data["content"] = data["text"] = sanitize(data.get("content", ""))
            if module["type"] == "community_goal" and isinstance(data, dict):
                data["description"] = sanitize(data.get("description", ""))
            if module["type"] == "featured_package" and isinstance(data, dict):
                package = data.get("package") or {}
                data["url"] = f"/package/{package.get('id', '')}"
            shown.append(
                {
                    "id": module["id"],
                    "type": module["type"],
                    "title": module["title"],
                    "template": f"module.{module['type']}.html",
                    "data": data,
                }
            )
        return shown

    # --- catalog ---

    def package_vars(self, package: Package, shown: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """`shown`: the package as the storefront shows it (`storefront.shown.package_data`)."""
        shown = shown or package_data(package, self.view, self.ctx)
        currency = self.store.currency
        period = ""
        if package.type is PackageType.SUBSCRIPTION and package.expiry_length:
            one, many = PERIODS[package.expiry_period]
            period = one if package.expiry_length == 1 else f"{package.expiry_length} {many}"
        gifting = not shown["disable_gifting"]
        return {
            "id": package.id,
            "name": package.name,
            "slug": shown["slug"],
            "url": URLS.package(package),
            "description": sanitize(package.description),
            "image": _http_url(package.image),
            "images": [m.url for m in package.media if m.type == "image" and _http_url(m.url)],
            "type": package.type.value,
            "subscription": package.type is PackageType.SUBSCRIPTION,
            "billing_period": period,
            "price": money(shown["total_price"], currency),
            "base_price": money(shown["base_price"], currency),
            "discount": money(shown["discount"], currency),
            "on_sale": shown["discount"] > 0,
            "prorate_price": money(shown["prorate_price"], currency)
            if shown["prorate_price"] is not None
            else None,
            "disable_quantity": shown["disable_quantity"],
            "disable_gifting": not gifting,
            "variables": [
                {
                    "name": v,
                    "label": v.replace("_", " ").capitalize(),
                    # a dropdown's choices ({name, value}); [] for free text
                    "options": [o.model_dump() for o in package.variable_options.get(v, [])],
                }
                for v in package.variables
            ],
            "category_id": package.category_id,
        }

    def packages_of(self, category: Category) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        """The category's packages priced for the visitor (a tier's upgrade prices) and the tier."""
        tier = self.data.tiers.get(category.id) if category.tiered else None
        if category.dynamic:
            shown = self._dynamic_packages(category)
        else:
            shown = [
                package_data(p, self.view, self.ctx)
                | {"prorate_price": prorate_price(p, tier, self.view, self.ctx)}
                for p in category_packages(category, self.view)
            ]
        by_id = {p.id: p for p in visible_packages(self.view)}
        packages = [self.package_vars(by_id[s["id"]], s) for s in shown if s["id"] in by_id]
        current = None
        held = tier_data(tier, self.view, self.ctx) if tier else None
        if held is not None:
            pending = held["pending_downgrade_package"]
            current = {
                "package_id": held["package"]["id"],
                "package_name": held["package"]["name"],
                "next_payment_date": held["next_payment_date"] or "",
                "status": held["status"]["description"],
                "pending_downgrade": pending["name"] if pending else "",
            }
            for each in packages:
                each["current"] = each["id"] == held["package"]["id"]
        return packages, current

    def _dynamic_packages(self, category: Category) -> list[dict[str, Any]]:
        """A dynamic category's packages: the visitor's basket's (the storefront's view of them)."""
        if self.data.basket is None:
            return []
        from webstore.storefront.views import dynamic_package_views  # a basket's dynamic packages only

        return [
            shown.model_dump()
            for shown in dynamic_package_views(self.data.basket, category, self.view, self.ctx)
        ]

    def category_vars(self, category: Category) -> dict[str, Any]:
        packages, tier = self.packages_of(category)
        return {
            "id": category.id,
            "name": category.name,
            "slug": category.slug or str(category.id),
            "url": URLS.category(category),
            "description": sanitize(category.description),
            "display_type": self.data.theme.look.package_layout or category.display_type,
            "tiered": category.tiered,
            "image": _http_url(category.image_url),
            "packages": packages,
            "tier": tier,
            "subcategories": [
                {"id": c.id, "name": c.name, "url": URLS.category(c)}
                for c in sorted(self.view.categories, key=lambda c: (c.order, c.id))
                if c.parent_id == category.id
            ],
        }

    def featured(self) -> dict[str, Any] | None:
        """The sidebar's featured package if one is configured, else the first for sale."""
        packages = {p.id: p for p in visible_packages(self.view)}
        for module in self.store.sidebar:
            if module.type == "featured_package":
                chosen = packages.get(int_setting(module, "package_id") or 0)
                if chosen:
                    return self.package_vars(chosen)
        first = next(iter(packages.values()), None)
        return self.package_vars(first) if first else None

    def _logged_in(self) -> bool:
        """The visitor's basket names a player (and is not paid for: then it is done)."""
        basket = self.data.basket
        return bool(basket and basket.username and not (basket.complete or basket.paid))

    def _sale_banner(self, sale: Sale) -> str:
        """The hero's banner for a running sale: its name and what it takes off."""
        discount = sale.discount
        if discount.type is DiscountType.PERCENTAGE and discount.percentage:
            percent = f"{discount.percentage.normalize():f}"
            return translate(
                self.translations, "%(sale)s: %(percent)s%% off", {"sale": sale.name, "percent": percent}
            )
        return sale.name

    # --- the basket ---

    def basket_vars(self) -> dict[str, Any]:
        basket = self.data.basket
        currency = self.store.currency
        if basket is None or basket.complete or basket.paid:
            return {
                "ident": "",
                "username": "",
                "logged_in": False,
                "count": 0,
                "packages": [],
                "rows": [],
                "coupons": [],
                "giftcards": [],
                "creator_code": "",
                "total": money(Decimal(0), currency),
                "amount_due": money(Decimal(0), currency),
                "empty": True,
            }
        # Here, not at import: only a visitor's basket needs the checkout's summary and its tax code.
        from webstore.checkout.summary import mask_card, order_summary

        priced = basket.model_copy(deep=True)
        priced.reprice(self.store, self.now)  # the checkout's own pricing: totals to the cent
        summary = order_summary(priced, self.store, self.now)
        lines = []
        for line, view in zip(priced.lines, summary.lines, strict=True):
            lines.append(
                {
                    "id": line.package_id,
                    "name": line.name,
                    "quantity": line.quantity,
                    "unit_price": money(view.unit_price, currency),
                    "line_total": money(view.line_total, currency),
                    "gift_username": line.gift_username or "",
                    "target": line.gift_username or "",
                    "variables": [{"name": k, "value": v} for k, v in line.variable_data.items()],
                    "image": _http_url(line.image),
                    "disable_quantity": line.type is PackageType.SUBSCRIPTION or line.dynamic,
                    "url": f"/package/{line.package_id}" if not line.dynamic else "",
                }
            )
        return {
            "ident": priced.ident,
            "username": priced.username or "",
            "logged_in": bool(priced.username),
            "count": sum(line.quantity for line in priced.lines),
            "packages": lines,
            "rows": [
                {
                    "kind": r.kind.value,
                    "label": translate(self.translations, r.label, {}),
                    "amount": money(r.amount, currency),
                    "note": r.note,
                }
                for r in summary.rows
            ],
            "coupons": [c.code for c in priced.coupons],
            "giftcards": [mask_card(n) for n in priced.giftcards],
            "giftcard_numbers": list(priced.giftcards),
            "creator_code": priced.creator_code,
            "total": money(summary.total, currency),
            "amount_due": money(summary.amount_due, currency),
            "empty": not priced.lines,
        }


def _http_url(url: str | None) -> str:
    """Only http(s) URLs reach an `src` (a `javascript:` or `data:` image is dropped)."""
    if url and url.lower().startswith(("https://", "http://")):
        return url
    return ""
