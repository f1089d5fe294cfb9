"""The catalog pages (webstore.admin.catalog_pages, catalog_element_pages, settings_pages,
audit_pages) under moto: what they show, escaped; a form through the panel's one form flow
(webstore.admin.flow.submit): a refused save shows the form again with the message and what was
typed, writing nothing."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from tests.support.demo import DemoStore
from webstore.admin import catalog_element_pages, catalog_pages, settings_pages
from webstore.admin.audit_pages import audit_page
from webstore.admin.catalog import catalog_revision
from webstore.admin.flow import PanelPage, submit
from webstore.html import Markup, macro
from webstore.repo.store import StoreRepository
from webstore.services import Services, get_services

A = 1
CSRF = macro("panel/macros.html", "csrf_field", "t")
NOW = datetime(2099, 11, 23, 22, 0, tzinfo=UTC)  # after the demo import, whenever the test runs
XSS = '<script>alert("x")</script>'


@dataclass(frozen=True)
class Outcome:
    """What a form answered: where to go (303), or its page again."""

    redirect: str | None
    status: int = 303
    body: str = ""


def _outcome(result: str | PanelPage) -> Outcome:
    return Outcome(result) if isinstance(result, str) else Outcome(None, result.status, result.body)


def list_page(
    services: Services, account: int, path: str, after: str | None, *, can_write: bool
) -> PanelPage:
    return catalog_pages.list_page(services, account, path, after, may_write=lambda: can_write)


def element_page(
    services: Services, account: int, path: str, ref: str, *, csrf: Markup, can_write: bool
) -> PanelPage:
    return catalog_element_pages.element_page(
        services, account, path, ref, csrf=csrf, may_write=lambda: can_write
    )


def settings_page(services: Services, account: int, *, csrf: Markup, can_write: bool) -> PanelPage:
    return settings_pages.settings_page(services, account, csrf=csrf, may_write=lambda: can_write)


def save_page(
    services: Services,
    account: int,
    path: str,
    ref: str,
    fields: dict[str, str],
    *,
    actor: str,
    csrf: Markup,
    now: datetime,
) -> Outcome:
    return _outcome(
        submit(
            lambda: catalog_element_pages.save_action(
                services, account, path, ref, fields, actor=actor, now=now
            ),
            lambda error: catalog_element_pages.form_again(
                services, account, path, ref, fields, error, csrf=csrf
            ),
        )
    )


def _settings_form(
    which: str,
    action: Callable[[], str],
    services: Services,
    account: int,
    fields: dict[str, str],
    csrf: Markup,
) -> Outcome:
    return _outcome(
        submit(
            action,
            lambda error: settings_pages.settings_again(services, account, which, fields, error, csrf=csrf),
        )
    )


def save_settings_page(
    services: Services, account: int, fields: dict[str, str], *, actor: str, csrf: Markup, now: datetime
) -> Outcome:
    action = lambda: settings_pages.save_store_action(services, account, fields, actor=actor, now=now)  # noqa: E731
    return _settings_form("store", action, services, account, fields, csrf)


def save_sidebar_page(
    services: Services,
    account: int,
    ref: str,
    fields: dict[str, str],
    *,
    actor: str,
    csrf: Markup,
    now: datetime,
) -> Outcome:
    action = lambda: settings_pages.save_sidebar_action(services, account, ref, fields, actor=actor, now=now)  # noqa: E731
    return _settings_form(f"sidebar:{ref}", action, services, account, fields, csrf)


def test_lists_page_in_the_database_and_show_the_write_controls_only_to_writers(demo: DemoStore) -> None:
    services = get_services()
    view = list_page(services, A, "packages", None, can_write=True)
    assert "New package" in view.body and "Diamond Sword" in view.body
    assert "New package" not in list_page(services, A, "packages", None, can_write=False).body
    tree = list_page(services, A, "categories", None, can_write=False).body
    assert "Crates" in tree and "tiered" in tree
    for path in ("pages", "coupons", "gift-cards", "sales", "goals"):
        assert list_page(services, A, path, None, can_write=True).status == 200


def test_create_a_package_with_commands_through_its_form(demo: DemoStore) -> None:
    services = get_services()
    form = element_page(services, A, "packages", "new", csrf=CSRF, can_write=True)
    assert 'name="commands.0.command"' in form.body and 'name="revision"' in form.body
    fields = {
        "csrf": "t",
        "revision": str(catalog_revision(services, A)),
        "name": "Emerald",
        "category_id": "2",
        "price": "1.50",
        "commands.0.server_id": "1",
        "commands.0.command": "give {username} emerald",
        "commands.0.trigger": "purchase",
    }
    saved = save_page(services, A, "packages", "new", fields, actor="owner@x.test", csrf=CSRF, now=NOW)
    assert saved.redirect == "/catalog/packages/21?done=Saved"
    package = StoreRepository(services.table).package(A, 21)
    assert package is not None and package.commands[0].command == "give {username} emerald"


def test_a_refused_save_shows_the_message_and_what_was_typed(demo: DemoStore) -> None:
    services = get_services()
    fields = {"revision": str(catalog_revision(services, A)), "name": XSS, "category_id": "2", "price": "-1"}
    view = save_page(services, A, "packages", "new", fields, actor="owner@x.test", csrf=CSRF, now=NOW)
    assert view.status == 422 and view.redirect is None
    assert "packages[7] (id 21 &#34;&lt;script&gt;" in view.body
    assert ".price: Input should be greater than or equal to 0" in view.body
    assert XSS not in view.body and "&lt;script&gt;" in view.body
    stale = save_page(
        services,
        A,
        "packages",
        "new",
        {**fields, "price": "1", "revision": "0"},
        actor="x",
        csrf=CSRF,
        now=NOW,
    )
    assert stale.status == 409 and "reload" in stale.body


def test_stored_text_is_escaped_on_every_page_that_shows_it(demo: DemoStore) -> None:
    services = get_services()
    revision = catalog_revision(services, A)
    fields = {"revision": str(revision), "name": XSS, "slug": "x", "description": XSS}
    assert save_page(services, A, "categories", "new", fields, actor=XSS, csrf=CSRF, now=NOW).redirect
    pages = [
        list_page(services, A, "categories", None, can_write=True).body,
        element_page(services, A, "categories", "5", csrf=CSRF, can_write=True).body,
        element_page(services, A, "packages", "new", csrf=CSRF, can_write=True).body,  # the category's name
        audit_page(services, A, None).body,
    ]
    for body in pages:
        assert XSS not in body and "&lt;script&gt;" in body


def test_store_settings_and_sidebar_and_a_link_to_where_the_gateways_are_set(demo: DemoStore) -> None:
    services = get_services()
    page = settings_page(services, A, csrf=CSRF, can_write=True)
    assert "Demo Craft" in page.body and "Sidebar modules" in page.body
    revision = str(catalog_revision(services, A))
    typed = {"revision": revision, "name": "Renamed", "currency": "USD", "primary_color": "blue"}
    refused = save_settings_page(services, A, typed, actor="o", csrf=CSRF, now=NOW)
    assert refused.status == 422 and "store.primary_color" in refused.body and 'value="blue"' in refused.body
    done = save_settings_page(
        services, A, {**typed, "primary_color": "#112233"}, actor="o", csrf=CSRF, now=NOW
    )
    assert done.redirect == "/settings?done=Saved"
    store = StoreRepository(services.table).store(A)
    assert store.name == "Renamed" and store.sidebar and store.platform_type == "Minecraft (Java Edition)"

    revision = str(catalog_revision(services, A))
    removed = save_sidebar_page(
        services, A, "0", {"revision": revision, "delete": "1"}, actor="o", csrf=CSRF, now=NOW
    )
    assert (
        removed.redirect and len(StoreRepository(services.table).store(A).sidebar) == len(store.sidebar) - 1
    )

    # The Stripe keys are set on the Go live page (checked with Stripe there): no form of its own.
    shown = settings_page(services, A, csrf=CSRF, can_write=True).body
    assert 'href="/go-live"' in shown
    assert "/settings/gateways" not in shown and 'name="secret_key"' not in shown


def test_the_audit_log_pages_with_a_cursor(demo: DemoStore) -> None:
    from webstore.repo.audit_log import AuditLog

    log = AuditLog(get_services().table)
    for n in range(55):
        log.record(A, "owner@x.test", "catalog.page.update", f"change {n}", NOW.replace(second=n))
    first = audit_page(get_services(), A, None)
    assert "change 54" in first.body and "Older entries" in first.body
    cursor = first.body.split('href="/audit?cursor=')[1].split('"')[0]
    from urllib.parse import unquote

    second = audit_page(get_services(), A, unquote(cursor))
    assert "change 4<" in second.body and "change 54" not in second.body


def test_a_list_pages_in_the_database_with_a_cursor(demo: DemoStore) -> None:
    from tests.support.demo import demo_catalog_data
    from webstore.catalog_import import import_catalog, parse_catalog

    data = demo_catalog_data()
    data["pages"] = [{"id": n, "title": f"Page {n}", "slug": f"page-{n}"} for n in range(1, 61)]
    import_catalog(demo.table, parse_catalog(data))
    services = get_services()
    first = list_page(services, A, "pages", None, can_write=False)
    assert "Page 50<" in first.body and "Page 51<" not in first.body
    assert 'href="/catalog/pages?after=50"' in first.body
    second = list_page(services, A, "pages", "50", can_write=False)
    assert "Page 51<" in second.body and "Page 60<" in second.body and "Page 50<" not in second.body
    assert "Next page" not in second.body
