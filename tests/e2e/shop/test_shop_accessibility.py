"""Every shop page passes axe-core (pinned in package.json, installed by `npm ci`) in headless
Chromium against the local stack, on a desktop and a phone: no serious or critical violation;
and every page's HTML stays under 60 KB (docs/shop.md, "Accessibility")."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, ViewportSize

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[3]
# `npm ci` puts it here; AXE_CORE_JS names another copy (a worktree sharing node_modules).
AXE = Path(os.environ.get("AXE_CORE_JS") or ROOT / "node_modules" / "axe-core" / "axe.min.js")
BLOCKING = {"serious", "critical"}
MAX_PAGE_BYTES = 60_000
PAGES = ["/", "/category/items", "/category/ranks", "/package/10", "/page/rules", "/login", "/nowhere"]
DEVICES: dict[str, ViewportSize] = {
    "desktop": {"width": 1280, "height": 900},
    "phone": {"width": 390, "height": 844},
}


def violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's serious and critical violations of the page as loaded."""
    page.add_script_tag(path=str(AXE))
    found: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document, {resultTypes: ['violations']})).violations"
        ".map(v => ({id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map(n => n.html).slice(0, 3)}))"
    )
    return [v for v in found if v["impact"] in BLOCKING]


@pytest.mark.parametrize("device", list(DEVICES))
def test_every_shop_page_has_no_serious_accessibility_violation_and_stays_small(
    local_stack: dict[str, Any], browser: Browser, device: str
) -> None:
    assert AXE.is_file(), f"axe-core is not installed at {AXE}: run `npm ci` (package.json pins it)"
    shop = local_stack["shop_url"]
    # The axe script is injected by the test: the shop's policy (no inline script) is bypassed
    # for it, not changed.
    context = browser.new_context(viewport=DEVICES[device], is_mobile=device == "phone", bypass_csp=True)
    page = context.new_page()
    found: dict[str, list[dict[str, Any]]] = {}
    sizes: dict[str, int] = {}
    try:
        page.set_content(
            '<!doctype html><html lang="en"><title>t</title><main><img src="x.png"></main></html>'
        )
        assert "image-alt" in {v["id"] for v in violations(page)}  # the check finds what it should
        for path in PAGES:
            response = page.goto(shop + path)
            assert response is not None and response.status in (200, 404), path
            sizes[path] = len(response.body())
            found[path] = violations(page)
        page.goto(shop + "/package/10")
        page.get_by_role("button", name="Add to basket").click()
        page.wait_for_url(f"{shop}/basket")
        sizes["/basket"] = len(page.content().encode())
        found["/basket"] = violations(page)
    finally:
        context.close()
    blocking = {path: v for path, v in found.items() if v}
    assert not blocking, json.dumps(blocking, indent=1)
    assert max(sizes.values()) <= MAX_PAGE_BYTES, sizes
