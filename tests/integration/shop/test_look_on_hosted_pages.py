"""The shop's look (panel → Shop → Look) on every hosted page, through the real handlers: the
owner sets a logo, a favicon and colours once; the auth page, the checkout, the receipt, the
manage-subscription page and a hosted problem page wear them (the colours under the page's
policy by their hash), over the catalog's own; an empty look gives the catalog's back."""

from __future__ import annotations

import re
from urllib.parse import urlsplit

import pytest

from functions.admin import get_shop_look, post_shop_look
from functions.storefront import get_auth_page, get_checkout_page, get_checkout_receipt, get_subscription_page
from tests.integration.storefront.support import add, create
from tests.integration.storefront.test_checkout_pages import pay
from tests.support.cancellation import buy_subscription
from tests.support.demo import DemoStore
from tests.support.invocation import Invoke
from tests.support.lambda_events import Response
from tests.support.panel import PanelClient, signed_in
from webstore.admin.roles import Role
from webstore.html.player import style_hash
from webstore.repo.store import StoreRepository
from webstore.services import get_services
from webstore.subscriptions import manage_links

LOOK = {
    "logo": "https://cdn.example.com/logo.png",
    "favicon": "https://cdn.example.com/favicon.png",
    "primary_color": "#8A2BE2",
    "accent_color": "#0b6e4f",
}
RETURN = "http://localhost:3000/basket?step=2"


@pytest.fixture
def owner(demo: DemoStore) -> PanelClient:
    del demo
    return signed_in(Role.OWNER)


def save(owner: PanelClient, look: dict[str, str]) -> None:
    form = owner.get(get_shop_look.handler, "/shop/look").body
    seen = form.split('name="revision" value="', 1)[1].split('"', 1)[0]
    assert owner.post(post_shop_look.handler, "/shop/look", look | {"revision": seen}).status == 303


def in_the_look(page: Response) -> None:
    body = page.body
    assert '<link rel="icon" href="https://cdn.example.com/favicon.png">' in body, body[:800]
    assert '<img src="https://cdn.example.com/logo.png" alt=""' in body
    styles = re.findall(r"<style>(:root\{.*?)</style>", body)
    assert styles and "--brand:#8a2be2" in styles[0] and "--accent:#0b6e4f" in styles[0]
    policy = page.headers["content-security-policy"]
    assert f"'sha256-{style_hash(styles[0])}'" in policy and "img-src https: http:" in policy


def basket_with_a_sword(demo: DemoStore, invoke: Invoke) -> str:
    body = {"username": "Steve", "complete_url": "http://localhost:3000/thanks", "cancel_url": RETURN}
    ident: str = create(demo, invoke, **body)["ident"]
    assert add(invoke, ident, package_id=10, quantity=1).status == 200
    return ident


def test_every_hosted_page_wears_the_shops_look(owner: PanelClient, demo: DemoStore, invoke: Invoke) -> None:
    save(owner, LOOK)
    stored = StoreRepository(get_services().table).store(1).shop_brand
    assert stored.primary_color == "#8a2be2" and stored.favicon == LOOK["favicon"]

    ident = basket_with_a_sword(demo, invoke)
    auth = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert auth.status == 200
    in_the_look(auth)

    checkout = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert checkout.status == 200
    in_the_look(checkout)
    assert pay(invoke, ident, checkout).status == 303
    receipt = invoke(get_checkout_receipt.handler, "GET", f"/checkout/{ident}/receipt")
    assert receipt.status == 200
    in_the_look(receipt)

    problem = invoke(get_auth_page.handler, "GET", f"/auth/{ident}", query={"returnUrl": RETURN})
    assert problem.status >= 400  # the basket is paid for: a hosted problem page, in the look
    in_the_look(problem)

    bought = buy_subscription(invoke, demo)
    path = urlsplit(manage_links.manage_url("", get_services().secrets, 1, bought.reference)).path
    manage = invoke(get_subscription_page.handler, "GET", path)
    assert manage.status == 200
    in_the_look(manage)


def test_an_empty_look_gives_the_catalogs_brand_back(
    owner: PanelClient, demo: DemoStore, invoke: Invoke
) -> None:
    save(owner, LOOK)
    save(owner, dict.fromkeys(LOOK, ""))
    ident = basket_with_a_sword(demo, invoke)
    page = invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}")
    assert page.status == 200
    assert "cdn.example.com" not in page.body and 'rel="icon"' not in page.body


def test_a_catalog_import_keeps_the_look_on_the_hosted_pages(
    owner: PanelClient, demo: DemoStore, invoke: Invoke
) -> None:
    from webstore.catalog_export import export_catalog
    from webstore.catalog_import import import_catalog

    save(owner, LOOK)
    table = get_services().table
    import_catalog(table, export_catalog(table, 1), force=True)
    assert StoreRepository(table).store(1).shop_brand.logo == LOOK["logo"]
    ident = basket_with_a_sword(demo, invoke)
    in_the_look(invoke(get_checkout_page.handler, "GET", f"/checkout/{ident}"))
