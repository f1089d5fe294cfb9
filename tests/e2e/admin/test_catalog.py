"""The panel's catalog in headless Chromium against the local stack: sign in as the owner
`webstore serve` created, create a category and a package with a command, and the storefront
sells it; a mistake shows the import's message next to the form (issue 16)."""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import pytest
from playwright.sync_api import Browser, Page

pytestmark = pytest.mark.e2e


def signed_in(browser: Browser, stack: dict[str, Any]) -> Page:
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(f"{stack['admin_url']}/login")
    page.fill("#email", stack["admin_email"])
    page.fill("#password", stack["admin_password"])
    page.click("button[type=submit]")
    page.wait_for_url(f"{stack['admin_url']}/")
    return page


def test_create_a_category_and_a_package_with_a_command_and_see_it_in_the_storefront(
    local_stack: dict[str, Any], browser: Browser
) -> None:
    page = signed_in(browser, local_stack)
    slug = f"gems-{uuid.uuid4().hex[:6]}"
    page.click("nav.sections >> text=Catalog")
    page.click("nav.subnav >> text=Categories")
    page.click("text=New category")
    page.fill("#f-name", "Gems")
    page.fill("#f-slug", slug)
    page.click("form.catalog-form button[type=submit]")
    page.wait_for_selector("p.done")
    category_id = page.url.split("/catalog/categories/")[1].split("?")[0]

    page.goto(f"{local_stack['admin_url']}/catalog/packages/new")
    page.fill("#f-name", "Ruby")
    page.select_option("#f-category_id", category_id)
    page.fill("#f-price", "-2")
    page.select_option("#c0-server", "1")
    page.fill("input[name='commands.0.command']", "give {username} ruby 1")
    page.click("form.catalog-form button[type=submit]")
    error = page.locator("#form-error")
    assert "price: Input should be greater than or equal to 0" in error.inner_text()
    assert page.input_value("input[name='commands.0.command']") == "give {username} ruby 1"  # kept

    page.fill("#f-price", "2.00")
    page.click("form.catalog-form button[type=submit]")
    page.wait_for_selector("p.done")
    assert "give {username} ruby 1" in page.content()

    with httpx.Client(timeout=10) as http:
        categories = http.get(
            f"{local_stack['headless_url']}/categories", params={"includePackages": 1}
        ).json()["data"]
    ours = next(c for c in categories if c["slug"] == slug)
    assert [p["name"] for p in ours["packages"]] == ["Ruby"]

    page.goto(f"{local_stack['admin_url']}/audit")
    assert "catalog.package.create" in page.content()
