"""Every shop page through its real handler: 200 with what it shows, branded errors with a way
back, the static files, the policy and the headers."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from urllib.parse import urlsplit

from functions import unmatched
from functions.shop import get_basket, get_category, get_home, get_login, get_package, get_page, get_static
from functions.storefront import get_find_subscriptions_page
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.shop import ShopClient
from webstore import keys
from webstore.db import to_item
from webstore.players import RecentPayment, StoreStats, Tier
from webstore.services import get_services
from webstore.shop.assets import urls
from webstore.subscriptions import find_by_email


def main_of(html: str) -> str:
    return html[html.index("<main") : html.index("</main>")]


def test_home_shows_the_hero_the_sale_banner_the_featured_package_and_the_categories(
    player: ShopClient,
) -> None:
    page = player.get(get_home.handler, "/")
    assert page.status == 200, page.body
    assert page.headers["content-type"].startswith("text/html")
    body = page.body
    assert '<h1 id="hero-title">Demo Craft</h1>' in body
    assert 'id="sale-banner">Crate week: 10% off<' in body  # the demo's running sale
    featured = body[body.index('id="featured-title"') :]
    assert "1,000 Coins" in featured[:1500]  # the sidebar's featured package (11)
    for name, url in (("Ranks", "/category/ranks"), ("Items", "/category/items")):
        assert f'<a href="{url}">{name}</a>' in body
    assert '<a href="/page/rules">Rules</a>' in body  # the store's custom pages in the menu


def test_a_category_lists_its_packages_with_prices(player: ShopClient) -> None:
    page = player.get(get_category.handler, "/category/items")
    assert page.status == 200, page.body
    content = main_of(page.body)
    assert "<h1>Items</h1>" in content
    for name in ("Diamond Sword", "1,000 Coins", "Pet Unlock"):
        assert name in content
    assert "$2.50 USD" in content and "Crates" in content  # a price, the subcategory


def test_a_sale_is_struck_through(player: ShopClient) -> None:
    page = player.get(get_category.handler, "/category/crates")
    content = main_of(page.body)
    assert re.search(r"<del aria-label=\"was\">\$1\.99 USD</del>\s*<strong>\$1\.79 USD</strong>", content), (
        content
    )


def test_a_package_page_has_its_description_price_period_and_form(player: ShopClient) -> None:
    page = player.get(get_package.handler, "/package/11")
    assert page.status == 200, page.body
    content = main_of(page.body)
    assert "<h1>1,000 Coins</h1>" in content and "$5.00 USD" in content
    assert 'name="quantity"' in content and 'name="gift_to"' in content
    # a dropdown variable is a select of its options; free text an input
    assert '<select id="var-world" name="var_world" required>' in content
    assert '<option value="survival">Survival</option><option value="creative">Creative</option>' in content
    shout = main_of(player.get(get_package.handler, "/package/13").body)
    assert '<input id="var-note" name="var_note" required maxlength="500">' in shout
    assert 'method="post" action="/basket/packages"' in content
    vip = main_of(player.get(get_package.handler, "/package/1").body)
    assert "/ month" in vip and 'name="quantity"' not in vip  # a subscription, no quantity
    assert "VIP rank: /fly, coloured chat." in vip
    pet = main_of(player.get(get_package.handler, "/package/12").body)
    assert 'name="gift_to"' not in pet  # gifting disabled


def test_a_tiered_category_shows_the_players_tier_and_the_upgrade_price(
    player: ShopClient, seed_tier: Callable[..., Tier]
) -> None:
    from functions.shop import post_login

    player.get(get_login.handler, "/login")
    assert player.post(post_login.handler, "/login", {"username": "Notch"}).status == 303
    player_id = int(player.cookies["shop_player"])
    seed_tier(username_id=player_id)
    content = main_of(player.get(get_category.handler, "/category/ranks").body)
    assert 'id="current-tier">Your rank: <strong>VIP</strong>' in content
    assert "Upgrade now for $" in content and "Your current rank" in content
    package = main_of(player.get(get_package.handler, "/package/2").body)
    assert "Upgrade now for $" in package


def test_a_forged_player_cookie_shows_no_tier(player: ShopClient, seed_tier: Callable[..., Tier]) -> None:
    seed_tier(username_id=42)
    player.cookies["shop_player"] = "42"
    content = main_of(player.get(get_category.handler, "/category/ranks").body)
    assert "Your rank" not in content and "Upgrade now" not in content


def test_a_custom_page_and_the_login_page(player: ShopClient) -> None:
    rules = player.get(get_page.handler, "/page/rules")
    assert rules.status == 200 and "<p>Be nice.</p>" in rules.body
    login = player.get(get_login.handler, "/login")
    assert login.status == 200 and 'name="username"' in login.body
    basket = player.get(get_basket.handler, "/basket")
    assert basket.status == 200 and "Your basket is empty" in basket.body


def test_missing_things_are_the_branded_404_with_a_way_back(player: ShopClient) -> None:
    for handler, path in (
        (get_category.handler, "/category/nope"),
        (get_package.handler, "/package/999"),
        (get_page.handler, "/page/nope"),
        (unmatched.shop_handler, "/no/such/place"),
    ):
        page = player.get(handler, path)
        assert page.status == 404, path
        assert "<title>Not found · Demo Craft</title>" in page.body, path
        assert '<a id="back" class="button" href="/">Back to Demo Craft</a>' in page.body, path
        assert "Content-Security-Policy".lower() in page.headers


def test_pages_with_forms_are_never_cached_framed_or_scripted_inline(player: ShopClient) -> None:
    page = player.get(get_package.handler, "/package/10")
    csp = page.headers["content-security-policy"]
    assert "script-src 'self';" in csp and "unsafe-inline" not in csp and "unsafe-eval" not in csp
    assert "frame-ancestors 'none'" in csp and "form-action 'self' https://shop.test" in csp
    assert page.headers["cache-control"] == "no-store" and page.headers["x-frame-options"] == "DENY"
    assert "<script>" not in page.body and " on" not in re.sub(r"<[^>]*>", "", "")  # no inline script
    assert not re.search(r"<[^>]+\son\w+=", page.body)  # no event handler attributes
    cookie = next(c for c in page.cookies if c.startswith("shop_csrf="))
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie


def test_static_files_are_content_hashed_and_cached_for_a_year(player: ShopClient) -> None:
    page = player.get(get_home.handler, "/")
    css, htmx = urls()["css"], urls()["htmx"]
    assert f'href="{css}"' in page.body and f'src="{htmx}"' in page.body
    assert re.fullmatch(r"/static/shop\.[0-9a-f]{10}\.css", css)
    served = player.get(get_static.handler, css)
    assert served.status == 200 and served.headers["content-type"].startswith("text/css")
    assert served.headers["cache-control"] == "public, max-age=31536000, immutable"
    assert player.get(get_static.handler, "/static/htmx.js").status == 404  # only hashed names
    assert player.get(get_static.handler, "/static/settings.py").status == 404


def test_every_page_links_find_my_subscriptions_to_the_hosted_form(
    demo: DemoStore, player: ShopClient, invoke: Invoke
) -> None:
    """A player who lost a subscription's manage link finds the hosted form from the shop:
    every page's footer and the log-in page link the address the form really has."""
    expected = find_by_email.form_url(get_services(), demo.token)
    for handler, path in (
        (get_home.handler, "/"),
        (get_login.handler, "/login"),
        (get_basket.handler, "/basket"),
    ):
        page = player.get(handler, path)
        assert f'<a href="{expected}" id="find-subscriptions">Find my subscriptions</a>' in page.body, path
    assert main_of(player.get(get_login.handler, "/login").body).count(f'href="{expected}"') == 1
    form = invoke(get_find_subscriptions_page.handler, "GET", urlsplit(expected).path)
    assert form.status == 200 and 'name="email"' in form.body


def test_the_package_modal_is_a_hashed_script_over_links_that_work_without_it(player: ShopClient) -> None:
    """The modal enhances the package card's link; the link is the package page, whose
    `#package-detail` is what the modal shows; the script is a file under the policy."""
    category = player.get(get_category.handler, "/category/items")
    js = urls()["js"]
    assert re.fullmatch(r"/static/shop\.[0-9a-f]{10}\.js", js) and f'src="{js}"' in category.body
    assert '<a class="button" href="/package/11" data-package-modal>' in category.body
    assert '<dialog id="package-modal" class="modal">' in category.body
    package = player.get(get_package.handler, "/package/11")
    assert '<article class="package-page" id="package-detail">' in package.body
    served = player.get(get_static.handler, js)
    assert served.status == 200 and served.headers["content-type"].startswith("text/javascript")
    assert "package-detail" in served.body and "eval(" not in served.body


def test_player_names_and_owner_html_are_escaped_or_sanitised_in_every_module(
    demo: DemoStore, player: ShopClient
) -> None:
    """Stored XSS: what players typed (recent payments, top customer) and what the owner wrote
    (the text module, a goal's description) cannot run script on the shop."""
    hostile = '<img src=x onerror="alert(1)">'
    now = datetime.now(UTC)
    stats = StoreStats(
        recent_payments=[
            RecentPayment(username=hostile, package="<script>p()</script>", amount=Decimal("1"),
                          currency="USD", date=now - timedelta(minutes=1))
        ],
        month=now.strftime("%Y-%m"),
        month_revenue=Decimal("1"),
        top_customer={"username": hostile, "total": Decimal("1")},
    )  # fmt: skip
    demo.table.put(to_item(stats, keys.store_pk(1), keys.STATS_ITEM, "stats"))
    from webstore.repo.store import StoreRepository

    repository = StoreRepository(demo.table)
    store = repository.store(1)
    store.sidebar[0].settings["content"] = '<p>Hi</p><script>steal()</script><a href="javascript:x()">x</a>'
    store.description = '<p onclick="x()">Welcome</p>'
    demo.table.put(repository.store_item(store))

    body = player.get(get_home.handler, "/").body
    assert hostile not in body and "<script>p()" not in body and "<script>steal" not in body
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;" in body  # shown as text
    assert "javascript:" not in body and "onclick" not in body
    assert "<p>Hi</p>" in body and "<p>Welcome</p>" in body  # the owner's markup kept
