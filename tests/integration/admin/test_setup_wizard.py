"""The panel's first-sign-in setup through the real handlers under moto: signing in to a store
with no package opens it (for the owner, not for a reader, not once there is a package or once
it is skipped); each step's form writes through the panel's own use case (refused input: the
form again at 422 with the catalog's, the servers' or the look's message, nothing written),
every step can be skipped, the setup resumes where it was left, and the whole of it walked
leaves a store with a category, a package that the storefront sells, a renamed server and a
look the shop shows."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import pytest

from functions.admin import get_go_live, get_setup, post_setup_step
from functions.storefront import get_packages
from tests.integration.admin.test_catalog_handlers import revision_of
from tests.support.demo import DemoStore
from tests.support.invocation import invoke
from tests.support.panel import PanelClient, add_staff
from webstore.admin.roles import Role
from webstore.admin.store_setup import NewStore, create_store
from webstore.repo.account import AccountRepository
from webstore.repo.audit_log import AuditLog
from webstore.repo.catalog_lists import CatalogLists
from webstore.repo.setup import SetupRepository
from webstore.repo.shop_theme import ShopThemeRepository
from webstore.repo.store import StoreRepository
from webstore.services import get_services

STORE = 7


@pytest.fixture
def fresh(demo: DemoStore) -> NewStore:
    """A store made by `webstore init` (no category, no package; server 1 "Survival")."""
    return create_store(
        get_services(),
        store_id=STORE,
        name="Fresh Server",
        currency="EUR",
        owner_email="owner@fresh.test",
        server_name="Survival",
        now=datetime.now(UTC),
    )


def owner_of(new: NewStore) -> tuple[PanelClient, str]:
    """The owner signed in with `webstore init`'s password: (client, where sign-in went)."""
    client = PanelClient()
    answer = client.sign_in(new.owner_email, new.owner_password)
    assert answer.status == 303, answer.body
    return client, answer.headers["location"]


def step_page(client: PanelClient, step: str = "") -> str:
    page = client.get(get_setup.handler, "/setup", {"step": step} if step else None)
    assert page.status == 200, page.body
    return page.body


def post(client: PanelClient, step: str, **fields: str) -> tuple[int, str, str]:
    """The step's form as its page has it (its revision), with `fields`: (status, location, body)."""
    revision = revision_of(step_page(client, step))
    answer = client.post(post_setup_step.handler, f"/setup/{step}", {"revision": revision, **fields})
    return answer.status, answer.headers.get("location", ""), answer.body


def error_of(body: str) -> str:
    found = re.search(r'id="form-error">(.*?)</p>', body, re.S)
    assert found, body
    return found.group(1)


def test_the_owner_of_a_store_without_packages_signs_in_to_the_setup(fresh: NewStore) -> None:
    client, location = owner_of(fresh)
    assert location == "/setup"
    body = step_page(client)
    assert "Step 1 of 4: A first category" in body and 'action="/setup/category"' in body
    # A reader of the same store, and the demo store's owner (it has packages), go to the dashboard.
    reader = add_staff(Role.READONLY, account_id=STORE)
    assert PanelClient().sign_in(reader.member.email).headers["location"] == "/"
    demo_owner = add_staff(Role.OWNER, account_id=1)
    assert PanelClient().sign_in(demo_owner.member.email).headers["location"] == "/"
    # A reader may not open it (it writes the catalog).
    denied = PanelClient()
    denied.sign_in(reader.member.email)
    assert denied.get(get_setup.handler, "/setup").status == 403
    # Go live's Start here links to it.
    assert 'href="/setup" id="start-setup"' in client.get(get_go_live.handler, "/go-live").body


def test_the_category_step_refuses_a_blank_name_and_saves_through_the_catalog(fresh: NewStore) -> None:
    client, _ = owner_of(fresh)
    status, _, body = post(client, "category", name="  ", description="")
    assert status == 422 and "name" in error_of(body)
    assert "Step 1 of 4" in body
    assert CatalogLists(get_services().table).categories(STORE) == []
    status, location, _ = post(client, "category", name="Ranks", description="<p>Ranks for sale</p>")
    assert status == 303 and location == "/setup?step=package&done=Saved", location
    [category] = CatalogLists(get_services().table).categories(STORE)
    assert category.name == "Ranks" and category.description == "<p>Ranks for sale</p>"
    # The catalog's audit names the owner, as the catalog page's save does.
    assert any("owner@fresh.test" in e.actor for e in AuditLog(get_services().table).page(STORE).entries)


def test_the_package_step_refuses_a_bad_price_and_a_stale_form_then_the_storefront_sells_it(
    fresh: NewStore,
) -> None:
    client, _ = owner_of(fresh)
    assert post(client, "category", name="Ranks")[0] == 303
    body = step_page(client)  # resumes at the package, the new category and server 1 chosen
    assert "Step 2 of 4: A first package" in body
    assert re.search(r'<option value="1" selected>Ranks \(#1\)</option>', body), body
    assert re.search(r'<option value="1" selected>Survival \(#1\)</option>', body), body
    command = {
        "commands.0.server_id": "1",
        "commands.0.trigger": "purchase",
        "commands.0.command": "lp user {username} parent add vip",
    }
    status, _, body = post(client, "package", name="VIP", category_id="1", price="lots", **command)
    assert status == 422 and "price" in error_of(body)
    assert 'value="lots"' in body and "lp user {username} parent add vip" in body  # as typed
    assert not StoreRepository(get_services().table).has_packages(STORE)
    stale = client.post(
        post_setup_step.handler,
        "/setup/package",
        {"revision": "0", "name": "VIP", "category_id": "1", "price": "5.00", **command},
    )
    assert stale.status == 409, stale.body
    status, location, _ = post(client, "package", name="VIP", category_id="1", price="5.00", **command)
    assert status == 303 and location == "/setup?step=server&done=Saved", location
    token = StoreRepository(get_services().table).store(STORE).public_token
    listed = invoke(get_packages.handler, "GET", f"/api/accounts/{token}/packages")
    assert listed.status == 200 and '"name":"VIP"' in listed.body.replace(" ", ""), listed.body


def test_the_server_step_renames_the_server_or_adds_one_showing_its_secret_once(fresh: NewStore) -> None:
    client, _ = owner_of(fresh)
    body = step_page(client, "server")
    assert 'value="Survival"' in body and get_services().settings.operator_url in body
    status, _, body = post(client, "server", server_id="1", name="")
    assert status == 422 and "name" in error_of(body)
    status, location, _ = post(client, "server", server_id="1", name="Survival EU")
    assert status == 303 and location == "/setup?step=look&done=Saved", location
    servers = AccountRepository(get_services().table).servers(STORE)
    assert [s.name for s in servers.values()] == ["Survival EU"]
    # Without a server id the step adds one: its secret is shown this once, then the look.
    status, _, body = post(client, "server", name="Creative")
    assert status == 200 and 'id="secret"' in body and 'href="/setup?step=look&amp;done=Saved"' in body
    assert sorted(s.name for s in AccountRepository(get_services().table).servers(STORE).values()) == [
        "Creative",
        "Survival EU",
    ]


def test_the_look_step_refuses_a_bad_colour_and_finishing_goes_to_go_live(fresh: NewStore) -> None:
    client, _ = owner_of(fresh)
    status, _, body = post(client, "look", primary_color="blue", hero_text="Welcome")
    assert status == 422 and "#rrggbb" in error_of(body) and 'value="Welcome"' in body
    assert ShopThemeRepository(get_services().table).live(STORE).look.hero_text == ""
    status, location, _ = post(client, "look", primary_color="#1A5FB4", hero_text="Welcome to Fresh")
    assert status == 303 and location.startswith("/go-live?done=Setup+done"), location
    look = ShopThemeRepository(get_services().table).live(STORE).look
    assert (look.primary_color, look.hero_text) == ("#1a5fb4", "Welcome to Fresh")
    assert SetupRepository(get_services().table).progress(STORE).closed == "finished"
    # Finished: signing in again goes to the dashboard although the store still has no package.
    assert owner_of(fresh)[1] == "/"


def test_steps_can_be_skipped_the_setup_resumes_and_skipping_it_stops_the_sign_in_detour(
    fresh: NewStore,
) -> None:
    client, _ = owner_of(fresh)
    status, location, _ = post(client, "category", skip="step")
    assert status == 303 and location == "/setup?step=package&done=Skipped"
    assert CatalogLists(get_services().table).categories(STORE) == []
    # Signed out and in again: the setup opens where it was left.
    again, location = owner_of(fresh)
    assert location == "/setup"
    body = step_page(again)
    assert "Step 2 of 4: A first package" in body and "(skipped)" in body
    # An unknown step or skip value is refused, nothing passed.
    assert again.get(get_setup.handler, "/setup", {"step": "payments"}).status == 404
    status, _, body = post(again, "package", skip="everything")
    assert status == 422 and "skip" in error_of(body)
    status, location, _ = post(again, "package", skip="setup")
    assert status == 303 and location.startswith("/go-live?done=Setup+skipped"), location
    assert SetupRepository(get_services().table).progress(STORE).closed == "skipped"
    assert owner_of(fresh)[1] == "/"


def test_the_whole_setup_walked_leaves_a_store_to_sell_from(fresh: NewStore) -> None:
    client, location = owner_of(fresh)
    assert location == "/setup"
    assert post(client, "category", name="Ranks")[1] == "/setup?step=package&done=Saved"
    status, location, _ = post(
        client,
        "package",
        name="VIP",
        price="4.99",
        category_id="1",
        **{"commands.0.server_id": "1", "commands.0.command": "say {username} is VIP"},
    )
    assert (status, location) == (303, "/setup?step=server&done=Saved")
    assert post(client, "server", server_id="1", name="Survival")[1] == "/setup?step=look&done=Saved"
    status, location, _ = post(client, "look", accent_color="#aa3300")
    assert status == 303 and location.startswith("/go-live?done=Setup+done")
    body = step_page(client, "look")
    assert body.count("(done)") == 4
    page = client.get(get_go_live.handler, "/go-live")
    assert 'id="start-here"' not in page.body  # a package exists
    package = CatalogLists(get_services().table).element(STORE, "package", 1)
    assert package.name == "VIP" and package.commands[0].command == "say {username} is VIP"
