"""Issue 21's catalog must-show in headless Chromium against the local stack: every catalog
form of every demo element (and the store settings and each sidebar module) saved once as it
was read → "No changes", nothing written (the audit log's newest entry is still the same); then
one of each kind edited and saved → the change in the storefront or the operator interface and
in the audit log as `field: old → new`; the coupon flow that failed on every save passes; a
form with a mistake keeps what was typed."""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.admin.test_catalog import signed_in
from tests.e2e.conftest import WebhookReceiver, started_stack

pytestmark = pytest.mark.e2e

SECTIONS = ("categories", "packages", "pages", "coupons", "gift-cards", "sales", "goals")
# The field each kind's edit changes, and the form's input for it.
EDITED = {
    "categories": "name",
    "packages": "name",
    "pages": "title",
    "coupons": "note",
    "gift-cards": "note",
    "sales": "name",
    "goals": "name",
}


@pytest.fixture(scope="module")
def local_stack(
    tmp_path_factory: pytest.TempPathFactory, webhook_receiver: WebhookReceiver
) -> Iterator[dict[str, Any]]:
    """Its own stack: this module edits every demo entity, which the other e2e tests read."""
    yield from started_stack(tmp_path_factory, webhook_receiver)


def newest_audit_entry(page: Page, admin_url: str) -> str:
    page.goto(f"{admin_url}/audit")
    rows = page.locator("table tbody tr")
    return rows.first.inner_text() if rows.count() else ""


def element_refs(page: Page, admin_url: str, section: str) -> list[str]:
    page.goto(f"{admin_url}/catalog/{section}")
    return sorted(set(re.findall(rf'href="/catalog/{section}/([0-9]+)"', page.content())), key=int)


def save(page: Page, form: str = "form.catalog-form") -> str:
    page.click(f"{form} button[type=submit]:not([name=delete])")
    page.wait_for_selector("p.done, #form-error, p.error")
    done = page.locator("p.done")
    return done.inner_text() if done.count() else page.locator("#form-error, p.error").first.inner_text()


def test_every_form_saved_unchanged_then_each_kind_edited(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    admin = local_stack["admin_url"]
    page = signed_in(browser, local_stack)
    before = newest_audit_entry(page, admin)
    saved: list[str] = []
    for section in SECTIONS:
        refs = element_refs(page, admin, section)
        assert refs, f"no {section} in the demo store"
        for ref in refs:
            page.goto(f"{admin}/catalog/{section}/{ref}")
            assert save(page) == "No changes", f"{section}/{ref}"
            saved.append(f"{section}/{ref}")
    page.goto(f"{admin}/settings")
    assert save(page, "form[action='/settings']") == "No changes"
    page.goto(f"{admin}/settings")
    modules = re.findall(r'action="/settings/sidebar/([0-9]+)"', page.content())
    assert modules
    for n in modules:
        page.goto(f"{admin}/settings")
        assert save(page, f"form[action='/settings/sidebar/{n}']") == "No changes", f"sidebar module {n}"
    assert len(saved) >= 15
    assert newest_audit_entry(page, admin) == before  # nothing written

    mark = uuid.uuid4().hex[:6]
    for section, field in EDITED.items():
        ref = element_refs(page, admin, section)[0]
        page.goto(f"{admin}/catalog/{section}/{ref}")
        old = page.input_value(f"#f-{field}")
        new = f"{old} {mark}".strip()
        page.fill(f"#f-{field}", new)
        assert save(page) == "Saved", f"{section}/{ref}"
        assert page.input_value(f"#f-{field}") == new
        entry = newest_audit_entry(page, admin)
        assert f'{field}: "{old}" → "{new}"' in entry, (section, entry)
    page.goto(f"{admin}/settings")
    name = page.input_value("#f-name")
    page.fill("#f-name", f"{name} {mark}")
    assert save(page, "form[action='/settings']") == "Saved"
    assert f'store settings: name: "{name}" → "{name} {mark}"' in newest_audit_entry(page, admin)

    with httpx.Client(timeout=10) as http:
        categories = http.get(
            f"{local_stack['headless_url']}/categories", params={"includePackages": 1}
        ).json()
        names = [c["name"] for c in categories["data"]] + [
            p["name"] for c in categories["data"] for p in c["packages"]
        ]
        assert sum(mark in n for n in names) >= 2  # the category and the package, in the storefront
        secret = {"X-Tebex-Secret": local_stack["server_secret"]}
        coupons = http.get(f"{local_stack['plugin_url']}/coupons", headers=secret).json()["data"]
        assert any(mark in (c.get("note") or "") for c in coupons)  # the coupon, in the operator interface


def test_the_coupon_flow_saves_and_a_mistake_keeps_what_was_typed(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    admin = local_stack["admin_url"]
    page = signed_in(browser, local_stack)
    page.goto(f"{admin}/catalog/coupons/new")
    code = f"SPRING{uuid.uuid4().hex[:4].upper()}"
    page.fill("#f-code", code)
    page.fill("#f-discount-percentage", "15")
    page.select_option("#f-discount_application_method", "2")
    page.fill("#f-minimum", "lots")
    page.fill("#f-note", "typed by hand")
    assert "minimum" in save(page)
    assert page.input_value("#f-code") == code and page.input_value("#f-note") == "typed by hand"
    page.fill("#f-minimum", "5")
    assert save(page) == "Saved"
    coupon_id = page.url.split("/catalog/coupons/")[1].split("?")[0]
    page.select_option("#f-discount_application_method", "1")
    assert save(page) == "Saved"
    assert "discount_application_method: 2 → 1" in newest_audit_entry(page, admin)
    with httpx.Client(timeout=10) as http:
        got = http.get(
            f"{local_stack['plugin_url']}/coupons/{coupon_id}",
            headers={"X-Tebex-Secret": local_stack["server_secret"]},
        )
    assert got.status_code == 200 and got.json()["data"]["code"] == code
