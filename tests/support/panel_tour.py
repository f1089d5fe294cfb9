"""Every page of the control panel, found in the route table, and a local stack with something
to show on them: one walk for scripts/panel_screenshots.py (screenshots for review) and
tests/e2e/admin/test_every_page.py (every page answers, on a desktop and a phone).

The pages are the admin interface's GET routes with `html=True` that need a signed-in member
(the sign-in page does not). A path parameter is filled from `known` (the demo store's data and
the payment made here: `PARAMETERS` says which name means what) or else from a link a page
already visited shows (a delivery's id on the webhook's page, a subscription's reference on the
subscriptions list); a page neither can fill is skipped and says why, it never stops the walk.
"""

from __future__ import annotations

import json
import re
import tempfile
import threading
import time
import typing
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import Browser, BrowserContext

from functions.declarations import Interface, Route
from functions.routes import operations
from tests.support.local_stack import free_port, serving
from webstore.admin.layout import SECTIONS, Section
from webstore.admin.roles import Role
from webstore.admin.sessions import StaffSession

DEMO_ACCOUNT = 1  # the demo store's id (shared/webstore/demo/store.json)
BUYER = "Alex_Builder"
BOUGHT_PACKAGE = 10  # the demo's Diamond Sword: a one-off package
SUBSCRIBER = "Vip_Player"
SUBSCRIBED_PACKAGE = 1  # the demo's VIP rank: monthly

# What each path parameter name the panel's routes use means, as a value of the demo store (or
# of the payment `local_panel` makes). A name missing here is filled from the visited pages' links.
PARAMETERS: dict[str, Callable[[dict[str, str]], str | None]] = {
    "transaction": lambda known: known.get("transaction"),
    "package_id": lambda _: str(BOUGHT_PACKAGE),
    "category_id": lambda _: "1",
    "server_id": lambda _: "1",
    "player": lambda _: BUYER,
    "username": lambda _: BUYER,
    "section": lambda _: "packages",
    "element": lambda _: str(BOUGHT_PACKAGE),
}
_PARAMETER = re.compile(r"\{([^}/]+)\}")


# Pages a support member opens although their path lies under a section support cannot see:
# a server's waiting commands are the command queue's (the page says so in its navigation).
SUPPORT_OPENS = {"/servers/{server_id}": "queue"}


@dataclass(frozen=True)
class PanelPage:
    route: Route
    section: Section | None  # the navigation section the path falls under, if any

    @property
    def path(self) -> str:
        return self.route.path

    @property
    def parameters(self) -> list[str]:
        return _PARAMETER.findall(self.route.path)

    @property
    def slug(self) -> str:
        """A file name for the page: its operationId."""
        return self.route.operation_id


def needs_session(endpoint: Any) -> bool:
    """Whether an endpoint takes the signed-in member (`StaffDep`): the sign-in page does not."""
    try:
        hints = typing.get_type_hints(endpoint, include_extras=True)
    except Exception:  # an annotation that does not resolve here: treat it as a panel page
        return True
    return any(hint is StaffSession or StaffSession in typing.get_args(hint) for hint in hints.values())


def section_of(path: str) -> Section | None:
    """The navigation section a page's path falls under (`/catalog/...` → Catalog)."""
    if path == "/":
        return next(s for s in SECTIONS if s.href == "/")
    found = [s for s in SECTIONS if s.href != "/" and (path == s.href or path.startswith(s.href + "/"))]
    return max(found, key=lambda s: len(s.href), default=None)


def panel_pages() -> list[PanelPage]:
    """The admin interface's HTML GET pages of a signed-in member, in route-table order."""
    return [
        PanelPage(op.route, section_of(op.route.path))
        for op in operations(Interface.ADMIN)
        if op.route.method == "GET" and op.route.html and needs_session(op.endpoint)
    ]


def fill_from_links(template: str, links: set[str]) -> str | None:
    """The first link (a path of the panel) that matches `template`, parameters being one segment."""
    pattern = re.compile(
        "^" + _PARAMETER.sub("[^/?#]+", re.escape(template).replace(r"\{", "{").replace(r"\}", "}")) + "$"
    )
    for link in sorted(links):
        path = link.split("?", 1)[0].split("#", 1)[0]
        if pattern.match(path):
            return path
    return None


def fill(page: PanelPage, known: dict[str, str], links: set[str]) -> str | None:
    """The page's path with its parameters filled, or None when something is not known."""
    path = page.path
    for name in page.parameters:
        value = PARAMETERS[name](known) if name in PARAMETERS else None
        if value is None:
            return fill_from_links(page.path, links)
        path = path.replace("{" + name + "}", value)
    return path


@dataclass
class Visit:
    page: PanelPage
    url_path: str | None  # None: skipped
    reason: str = ""  # why it was skipped


def walk(known: dict[str, str], visit: Callable[[PanelPage, str], set[str]]) -> list[Visit]:
    """Visit every panel page once: those without parameters first, then those whose parameters
    are known or linked from a page visited before (passes until nothing more can be filled).
    `visit(page, path)` returns the page's links."""
    pending = panel_pages()
    done: list[Visit] = []
    links: set[str] = set()
    progress = True
    while pending and progress:
        progress = False
        for page in list(pending):
            path = fill(page, known, links)
            if path is None:
                continue
            links |= {link for link in visit(page, path) if link.startswith("/")}
            done.append(Visit(page, path))
            pending.remove(page)
            progress = True
    for page in pending:
        unknown = [n for n in page.parameters if n not in PARAMETERS or PARAMETERS[n](known) is None]
        done.append(Visit(page, None, f"no value for {', '.join('{' + n + '}' for n in unknown)}"))
    return done


# --- the local stack with a payment -------------------------------------------------------------


@dataclass
class LocalPanel:
    """A running `webstore serve` with one payment made through the hosted checkout."""

    credentials: dict[str, Any]
    credentials_file: Path
    known: dict[str, str] = field(default_factory=dict)

    @property
    def admin_url(self) -> str:
        return str(self.credentials["admin_url"])


@contextmanager
def webhook_receiver() -> Iterator[str]:
    """A receiver on 127.0.0.1 that takes every delivery (so the webhook pages have a log):
    yields the `--webhook` option's value (URL#secret)."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            answer = json.dumps({"id": json.loads(body or b"{}").get("id")}).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/webhooks#panel-tour-signing-secret"
    finally:
        server.shutdown()
        server.server_close()


def _wait(ready: Callable[[], bool], process: Any, what: str, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while not ready():
        if process.poll() is not None:
            raise RuntimeError(f"webstore serve exited with {process.returncode} before {what}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the local stack did not {what} within {timeout:.0f} s")
        time.sleep(0.2)


def _answers(url: str) -> bool:
    try:
        httpx.get(url, timeout=2)
        return True
    except httpx.TransportError:
        return False


@contextmanager
def local_panel(workdir: Path | None = None) -> Iterator[LocalPanel]:
    """`webstore serve` on free loopback ports (fresh state) with a webhook receiver; yields
    once the panel answers. Make the payment with `buy` (it needs a browser)."""
    with tempfile.TemporaryDirectory() as scratch, webhook_receiver() as webhook:
        creds_file = (workdir or Path(scratch)) / "credentials.json"
        with serving(free_port(), free_port(), creds_file, "--webhook", webhook) as process:

            def written() -> bool:
                return creds_file.exists() and "admin_url" in creds_file.read_text()

            _wait(written, process, "write its credentials file")
            credentials = json.loads(creds_file.read_text())
            _wait(lambda: _answers(credentials["headless_url"]), process, "answer")
            _wait(lambda: _answers(credentials["admin_url"] + "/login"), process, "serve the panel")
            yield LocalPanel(credentials, creds_file)


def checkout_link(panel: LocalPanel, username: str = BUYER, package_id: int = BOUGHT_PACKAGE) -> str:
    """A basket with one package, made through the storefront API: its hosted checkout's URL."""
    headless = panel.credentials["headless_url"]
    host = headless.split("/api/")[0]
    with httpx.Client(timeout=15) as http:
        made = http.post(
            f"{headless}/baskets",
            json={
                "username": username,
                "complete_url": "http://127.0.0.1:9/thanks",
                "cancel_url": "http://127.0.0.1:9/basket",
            },
        )
        made.raise_for_status()
        ident = made.json()["data"]["ident"]
        added = http.post(
            f"{host}/api/baskets/{ident}/packages", json={"package_id": package_id, "quantity": 1}
        )
        added.raise_for_status()
        return str(added.json()["data"]["links"]["checkout"])


def payment_made(panel: LocalPanel, username: str = BUYER, timeout: float = 30) -> str:
    """The transaction id of `username`'s payment, from the plugin API once it is recorded."""
    plugin, secret = panel.credentials["plugin_url"], panel.credentials["server_secret"]
    deadline = time.monotonic() + timeout
    with httpx.Client(timeout=10, headers={"X-Tebex-Secret": secret}) as http:
        while time.monotonic() < deadline:
            answer = http.get(f"{plugin}/payments")
            if answer.status_code == 200:
                for payment in answer.json():
                    if payment["player"]["name"] == username:
                        return str(payment["txn_id"])
            time.sleep(0.5)
    raise TimeoutError(f"no payment of {username} within {timeout:.0f} s")


def add_local_staff(panel: LocalPanel, role: Role, email: str) -> str:
    """A staff member of the demo store with `role`, written to the local stack's table as
    `webstore admin create-owner --local` does; its password."""
    from infra.tools import local_target
    from webstore.admin.staff import create_member
    from webstore.db import Table
    from webstore.events import InProcessBus
    from webstore.secret_box import secret_box
    from webstore.services import Services
    from webstore.settings import Settings

    target = local_target(panel.credentials_file)
    settings = Settings(**({"region": target.region} if target.region else {}))
    services = Services(
        settings=settings,
        table=Table(target.client(), target.table),
        publisher=InProcessBus(),
        secrets=secret_box(settings),
    )
    return create_member(services, DEMO_ACCOUNT, email, role, datetime.now(UTC)).password


def links_script() -> str:
    """JavaScript that lists a page's link targets (as written, so panel paths stay paths)."""
    return "() => Array.from(document.querySelectorAll('a[href]'), a => a.getAttribute('href'))"


# --- in the browser ----------------------------------------------------------------------------


def pay(browser: Browser, checkout_url: str) -> None:
    """Pay a checkout page with the sandbox card, as a player does."""
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(checkout_url)
        consent = page.locator("input[name=subscription_consent]")
        if consent.count():
            consent.check()
        page.get_by_label("Email for your receipt").fill("player@example.com")
        page.get_by_role("button", name="Pay now").click()
        page.wait_for_url("**/receipt", timeout=30_000)
    finally:
        context.close()


def buy(panel: LocalPanel, browser: Browser) -> None:
    """Two payments through the hosted checkout: the Diamond Sword (its transaction id becomes
    `known['transaction']`) and a monthly VIP rank (so there is a subscription to show)."""
    pay(browser, checkout_link(panel))
    panel.known["transaction"] = payment_made(panel)
    pay(browser, checkout_link(panel, SUBSCRIBER, SUBSCRIBED_PACKAGE))
    payment_made(panel, SUBSCRIBER)


def sign_in(context: BrowserContext, admin_url: str, email: str, password: str) -> None:
    """Sign in to the panel in `context` (its cookie then serves every page of the context)."""
    page = context.new_page()
    try:
        page.goto(f"{admin_url}/login")
        page.fill("#email", email)
        page.fill("#password", password)
        page.get_by_role("button", name="Sign in").click()
        page.wait_for_url(lambda url: "/login" not in url, timeout=15_000)
    finally:
        page.close()
