"""Where the Go live page finds the store's terms and refund policy (webstore.admin.golive_pages):
the policy URL first, else a shop page players can read whose slug names the policy."""

from __future__ import annotations

from datetime import UTC, datetime

from webstore.admin.golive_pages import legal_status, policy_links
from webstore.catalog import Page, Seller, Store

NOW = datetime(2026, 1, 1, tzinfo=UTC)
SELLER = Seller(legal_name="Craft SAS", address="1 rue", country="FR", tax_number="FR1")


def page(slug: str, **flags: bool) -> Page:
    return Page(id=len(slug), title=slug, slug=slug, created_at=NOW, updated_at=NOW, **flags)


def store(**fields: str) -> Store:
    required = {"id": 1, "name": "S", "currency": "EUR", "seller": SELLER, "created_at": NOW}
    return Store.model_validate(required | {"public_token": "t", "checkout_key_hash": "h"} | fields)


def test_the_urls_come_first_then_the_pages_at_the_shops_address() -> None:
    pages = [page("terms"), page("refunds")]
    assert policy_links(store(terms_url="https://x.example/t"), pages, "https://shop.example/") == {
        "terms": "https://x.example/t",
        "refunds": "https://shop.example/page/refunds",
    }
    assert legal_status(store(), policy_links(store(), pages, "")).state == "ok"


def test_refund_policy_is_the_other_name_and_unreadable_pages_do_not_count() -> None:
    links = policy_links(store(), [page("refund-policy"), page("terms", private=True)], "https://s.example")
    assert links == {"refunds": "https://s.example/page/refund-policy"}
    row = legal_status(store(), links)
    assert (row.state, row.missing) == ("todo", ("terms (URL or shop page)",))
    assert policy_links(store(), [page("terms", disabled=True), page("tos")], "") == {}


def test_without_pages_the_row_reads_the_two_urls() -> None:
    assert legal_status(store()).missing == ("terms (URL or shop page)", "refund policy (URL or shop page)")
    both = store(terms_url="https://x.example/t", refund_policy_url="https://x.example/r")
    assert legal_status(both).state == "ok"
