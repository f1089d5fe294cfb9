"""Legal pages in the shop's footer (docs/shop.md, "Legal pages"), through the real handlers:
the store's pages named `terms`, `privacy`, `refunds`, `imprint` (owner-edited like any custom
page) on every page's footer and out of the menu; the store's terms and refund URLs when it has
no such page; a disabled or private one nowhere."""

from __future__ import annotations

from datetime import UTC, datetime

from functions.shop import get_home, get_page
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from webstore.catalog import Page
from webstore.repo.store import StoreRepository
from webstore.services import get_services


def footer_and_menu(accept_language: str = "") -> tuple[str, str]:
    headers = {"accept-language": accept_language} if accept_language else {}
    body = invoke(get_home.handler, "GET", "/", headers=headers).body
    menu = body.split('aria-label="', 1)[1].split("</nav>", 2)[1]
    return body.split('<footer class="site">', 1)[1], menu


def add_page(**fields: object) -> None:
    now = datetime.now(UTC)
    values: dict[str, object] = {"content": "<p>Text</p>", "created_at": now, "updated_at": now} | fields
    repository = StoreRepository(get_services().table)
    get_services().table.put(repository.entity_item(1, Page.model_validate(values)))


def test_the_legal_pages_are_in_the_footer_in_order_and_out_of_the_menu(demo: DemoStore) -> None:
    add_page(id=3, title="Imprint", slug="imprint")
    add_page(id=4, title="Privacy notice", slug="privacy", hidden=True)
    add_page(id=5, title="Terms of sale", slug="terms")
    footer, menu = footer_and_menu()
    assert (
        footer.index('id="legal-terms"')
        < footer.index('id="legal-privacy"')
        < footer.index('id="legal-refunds"')
        < footer.index('id="legal-imprint"')
    )
    assert '<a href="/page/terms" id="legal-terms">Terms of sale</a>' in footer
    assert '<a href="/page/privacy" id="legal-privacy">Privacy notice</a>' in footer  # hidden: footer only
    assert '<a href="/page/refunds" id="legal-refunds">Refund policy</a>' in footer
    assert "/page/refunds" not in menu and "/page/imprint" not in menu and "/page/rules" in menu
    shown = invoke(get_page.handler, "GET", "/page/privacy")
    assert shown.status == 200 and "Privacy notice" in shown.body


def test_without_a_page_the_stores_urls_named_by_the_theme_in_the_visitors_language(demo: DemoStore) -> None:
    table = get_services().table
    repository = StoreRepository(table)
    store = repository.store(1)
    update = {"terms_url": "https://example.test/terms", "refund_policy_url": "https://example.test/refunds"}
    table.put(repository.store_item(store.model_copy(update=update)))
    footer, _ = footer_and_menu("de")
    assert '<a href="https://example.test/terms" id="legal-terms">AGB</a>' in footer
    assert '<a href="/page/refunds" id="legal-refunds">Refund policy</a>' in footer  # the page wins
    add_page(id=3, title="Gone", slug="imprint", disabled=True)
    add_page(id=4, title="Secret", slug="privacy", private=True)
    footer, _ = footer_and_menu()
    assert "legal-imprint" not in footer and "legal-privacy" not in footer
