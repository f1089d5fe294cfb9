"""Issue 16 (Must show): every page of the control panel, whichever pages the route table has;
and scripts/panel_screenshots.py, which writes them all for review.

The pages are enumerated from the admin interface's GET routes (tests/support/panel_tour.py,
the same walk scripts/panel_screenshots.py makes). For the owner, in headless Chromium: each
answers 200 inside the panel's layout with no console error, and on a phone (390x844) nothing
overflows sideways. For a support member: the pages of sections outside their role answer the
403 page, those inside answer, and the navigation hides the sections they may not open.
"""

from __future__ import annotations

import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, ConsoleMessage, Page

from tests.support.local_stack import ROOT
from tests.support.panel import http_sign_in
from tests.support.panel_tour import (
    SUPPORT_OPENS,
    LocalPanel,
    PanelPage,
    Visit,
    add_local_staff,
    buy,
    links_script,
    local_panel,
    panel_pages,
    sign_in,
    walk,
)
from webstore.admin.layout import SECTIONS
from webstore.admin.roles import Role, allowed

pytestmark = pytest.mark.e2e

SUPPORT_EMAIL = "support@example.com"
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
_NAV = re.compile(r'<nav class="sections".*?</nav>', re.S)
_CURRENT = re.compile(r'<a href="([^"]+)" aria-current="page"')


def support_may_open(page: PanelPage) -> bool | None:
    """Whether a support member may open the page: by the section its path lies under (or the
    section `SUPPORT_OPENS` names); None for a page under no section (their own account…)."""
    key = SUPPORT_OPENS.get(page.path)
    section = next(s for s in SECTIONS if s.key == key) if key else page.section
    return allowed(Role.SUPPORT, section.capability) if section else None


@dataclass
class Tour:
    panel: LocalPanel
    visits: list[Visit]
    problems: list[str] = field(default_factory=list)


def signed_in_tab(browser: Browser, panel: LocalPanel, *, mobile: bool) -> Page:
    size = PHONE if mobile else DESKTOP
    context = browser.new_context(viewport=size, is_mobile=mobile)
    context.set_default_timeout(20_000)
    credentials = panel.credentials
    sign_in(context, panel.admin_url, credentials["admin_email"], credentials["admin_password"])
    return context.new_page()


@pytest.fixture(scope="module")
def tour(browser: Browser) -> Iterator[Tour]:
    """The owner's walk over every page, desktop and phone, noting what is wrong on each."""
    with local_panel() as panel:
        buy(panel, browser)
        desktop = signed_in_tab(browser, panel, mobile=False)
        phone = signed_in_tab(browser, panel, mobile=True)
        errors: list[str] = []

        def console(message: ConsoleMessage) -> None:
            if message.type == "error":
                errors.append(message.text)

        for tab in (desktop, phone):
            tab.on("console", console)
            tab.on("pageerror", lambda error: errors.append(str(error)))
        problems: list[str] = []

        def visit(page: PanelPage, path: str) -> set[str]:
            errors.clear()
            answer = desktop.goto(panel.admin_url + path)
            desktop.wait_for_load_state("networkidle")
            status = answer.status if answer else 0
            if status != 200:
                problems.append(f"{path}: answered {status}")
            elif not (desktop.locator("header.top").count() and desktop.locator("nav.sections").count()):
                problems.append(f"{path}: not inside the panel's layout (header and navigation)")
            links = set(desktop.evaluate(links_script()))
            phone.goto(panel.admin_url + path)
            phone.wait_for_load_state("networkidle")
            # Against the screen's width, not innerWidth: a mobile browser widens its viewport
            # to what overflows (zooming out), so innerWidth would grow with the page.
            wide = phone.evaluate("() => document.documentElement.scrollWidth")
            if wide > PHONE["width"]:
                problems.append(f"{path}: {wide}px wide on a {PHONE['width']}px phone screen")
            problems.extend(f"{path}: console error: {text}" for text in errors)
            return links

        visits = walk(panel.known, visit)
        for tab in (desktop, phone):
            tab.context.close()
        yield Tour(panel, visits, problems)


def test_every_page_answers_the_owner_in_the_layout_on_desktop_and_phone(tour: Tour) -> None:
    visited = [v.url_path for v in tour.visits if v.url_path]
    assert "/" in visited  # the dashboard at least: the walk did run
    skipped = [f"{v.page.path}: {v.reason}" for v in tour.visits if v.url_path is None]
    assert not skipped, f"pages the walk could not fill (add to PARAMETERS in panel_tour.py): {skipped}"
    assert not tour.problems, "\n".join(tour.problems)


def test_support_opens_payments_players_and_queue_only_and_sees_only_their_links(tour: Tour) -> None:
    password = add_local_staff(tour.panel, Role.SUPPORT, SUPPORT_EMAIL)
    cookies, _ = http_sign_in(tour.panel.admin_url, SUPPORT_EMAIL, password)
    wrong: list[str] = []
    support_hrefs = {s.href for s in SECTIONS if allowed(Role.SUPPORT, s.capability)}
    with httpx.Client(base_url=tour.panel.admin_url, cookies=cookies, timeout=15) as http:
        for visit in tour.visits:
            if visit.url_path is None:
                continue
            answer = http.get(visit.url_path)
            may = support_may_open(visit.page)
            if may is None and answer.status_code not in (200, 403):
                wrong.append(f"{visit.url_path}: answered support {answer.status_code}")
            elif may is False and (answer.status_code != 403 or 'id="message"' not in answer.text):
                wrong.append(f"{visit.url_path}: answered support {answer.status_code}, not the 403 page")
            elif may is False and _NAV.search(answer.text):
                wrong.append(f"{visit.url_path}: the 403 page shows the navigation")
            elif may and answer.status_code != 200:
                wrong.append(f"{visit.url_path}: answered support {answer.status_code}, not 200")
            elif answer.status_code == 200:
                current = _CURRENT.search(answer.text)
                if current and current.group(1) not in support_hrefs:
                    wrong.append(f"{visit.url_path}: shown to support under {current.group(1)}")
        home = http.get("/")
    assert home.status_code == 200
    nav = _NAV.search(home.text)
    assert nav, "the dashboard has no navigation"
    shown = set(re.findall(r'href="([^"]+)"', nav.group(0)))
    for section in SECTIONS:
        if allowed(Role.SUPPORT, section.capability):
            assert section.href in shown, f"support cannot see their {section.label} link"
        else:
            assert section.href not in shown, f"support sees the {section.label} link"
    assert not wrong, "\n".join(wrong)


def png_width(path: Path) -> int:
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return int(struct.unpack(">I", header[16:20])[0])


def test_the_screenshot_script_writes_every_page_desktop_and_mobile(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "panel_screenshots.py"), "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    expected = {f"{page.slug}-{size}.png" for page in panel_pages() for size in ("desktop", "mobile")}
    assert {p.name for p in tmp_path.glob("*.png")} == expected, done.stdout
    assert "skipped" not in done.stdout
    for name in expected:
        assert png_width(tmp_path / name) == (1280 if name.endswith("-desktop.png") else 390), name
        assert str(tmp_path / name) in done.stdout.splitlines()
