"""Signing in to the control panel through the real handlers: passwords, the shared refusal,
the brute-force guard, session expiry and revocation, CSRF, roles and cross-store isolation."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
import time_machine

from functions.admin import get_dashboard, get_login, get_static, post_login, post_logout
from tests.support.demo import DemoStore
from tests.support.panel import PASSWORD, PanelClient, add_staff, csrf_of, session_cookie, signed_in
from webstore import services as services_module
from webstore.admin.roles import Role
from webstore.admin.sessions import COOKIE_NAME
from webstore.admin.staff import WRONG_CREDENTIALS
from webstore.catalog_import import ImportResult
from webstore.repo.staff import StaffRepository
from webstore.services import get_services


def test_the_owner_signs_in_and_sees_the_store(demo: DemoStore) -> None:
    owner = add_staff(Role.OWNER)
    client = PanelClient()
    response = client.sign_in(owner.member.email)
    assert response.status == 303 and response.headers["location"] == "/"
    [cookie] = [c for c in response.cookies if c.startswith(f"{COOKIE_NAME}=")]
    attributes = cookie.lower()
    assert "httponly" in attributes and "samesite=lax" in attributes and "path=/" in attributes
    assert "max-age=43200" in attributes  # 12 h
    assert "secure" in attributes  # API Gateway answers https only
    home = client.get(get_dashboard.handler, "/")
    assert home.status == 200
    from markupsafe import escape

    from webstore.repo.store import StoreRepository

    assert f"<h1>{escape(StoreRepository(get_services().table).store(1).name)}</h1>" in home.body
    assert "script-src 'self'" in home.headers["content-security-policy"]
    assert home.headers["cache-control"] == "no-store"
    assert 'href="/staff"' in home.body  # the owner manages staff


def test_the_cookie_is_not_secure_over_plain_http(demo: DemoStore) -> None:
    """The local stack serves http: a Secure cookie would never come back."""
    from tests.support.invocation import invoke
    from tests.support.panel import form_body

    owner = add_staff(Role.OWNER)
    body = form_body({"email": owner.member.email, "password": PASSWORD})
    plain = invoke(
        post_login.handler,
        "POST",
        "/login",
        raw_body=body["raw_body"],
        headers={**body["headers"], "x-forwarded-proto": "http"},
    )
    assert plain.status == 303
    [cookie] = [c for c in plain.cookies if c.startswith(f"{COOKIE_NAME}=")]
    assert "secure" not in cookie.lower()


def test_a_wrong_password_and_an_unknown_address_get_the_same_answer(demo: DemoStore) -> None:
    owner = add_staff(Role.OWNER)
    client = PanelClient()
    wrong = client.sign_in(owner.member.email, "not the password at all")
    unknown = client.sign_in("nobody@example.com", PASSWORD)
    for response in (wrong, unknown):
        assert response.status == 401
        assert WRONG_CREDENTIALS in response.body
        assert session_cookie(response) is None
    assert wrong.body.replace(owner.member.email, "X") == unknown.body.replace("nobody@example.com", "X")


def test_the_sign_in_page_returns_only_to_panel_paths(demo: DemoStore) -> None:
    client = PanelClient()
    for target, kept in (
        ("/payments?page=2", "/payments?page=2"),
        ("//evil.test", "/"),
        ("https://evil.test", "/"),
    ):
        page = client.get(get_login.handler, "/login", {"next": target})
        assert page.status == 200
        assert f'name="next" value="{kept}"' in page.body.replace("&amp;", "&"), target
    owner = add_staff(Role.OWNER)
    response = client.post(
        post_login.handler,
        "/login",
        {"email": owner.member.email, "password": PASSWORD, "next": "//evil.test/x"},
        csrf="",
    )
    assert response.headers["location"] == "/"


def test_failed_sign_ins_are_rate_limited_per_address(
    demo: DemoStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("WEBSTORE_SECRET_FAILURES_ALLOWED", "3")
    services_module.reset()
    owner = add_staff(Role.OWNER)
    client = PanelClient(source_ip="192.0.2.55")
    for _ in range(3):
        assert client.sign_in(owner.member.email, "wrong password!").status == 401
    blocked = client.sign_in(owner.member.email, "wrong password!")
    assert blocked.status == 429 and int(blocked.headers["retry-after"]) > 0
    # Even the right password is refused from that address until the window ends…
    assert client.sign_in(owner.member.email).status == 429
    # …and another address is not affected.
    assert PanelClient(source_ip="192.0.2.56").sign_in(owner.member.email).status == 303


def test_no_session_goes_to_the_sign_in_page_and_back(demo: DemoStore) -> None:
    client = PanelClient()
    response = client.get(get_dashboard.handler, "/", {"done": "x"})
    assert response.status == 303
    assert response.headers["location"] == "/login?next=/%3Fdone%3Dx"
    client.cookie = "garbage.signature"
    assert client.get(get_dashboard.handler, "/").headers["location"] == "/login"


def test_a_session_expires(demo: DemoStore) -> None:
    start = datetime(2030, 1, 10, 9, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as traveller:
        client = signed_in(Role.OWNER)
        traveller.move_to(start + timedelta(hours=11, minutes=59))
        assert client.get(get_dashboard.handler, "/").status == 200
        traveller.move_to(start + timedelta(hours=12, seconds=1))
        expired = client.get(get_dashboard.handler, "/")
        assert expired.status == 303 and expired.headers["location"] == "/login"


def test_logout_ends_every_session_of_the_member(demo: DemoStore) -> None:
    first = signed_in(Role.OWNER)
    second = PanelClient()
    assert second.sign_in("owner@store1.test").status == 303
    response = first.post(post_logout.handler, "/logout", {})
    assert response.status == 303 and response.headers["location"] == "/login"
    assert session_cookie(response) == ""  # cleared
    # The old cookie no longer opens anything, in either browser.
    assert first.get(get_dashboard.handler, "/").status == 303
    assert second.get(get_dashboard.handler, "/").status == 303


def test_a_removed_member_is_signed_out_at_once(demo: DemoStore) -> None:
    client = signed_in(Role.ADMIN)
    repo = StaffRepository(get_services().table)
    login = repo.login_of("admin@store1.test")
    assert login is not None
    member = repo.member(login.account_id, login.staff_id)
    assert member is not None
    repo.remove(member)
    assert client.get(get_dashboard.handler, "/").status == 303


@pytest.mark.parametrize("csrf", ["", "not-the-token"])
def test_a_post_without_its_csrf_token_is_refused_and_does_nothing(demo: DemoStore, csrf: str) -> None:
    client = signed_in(Role.OWNER)
    refused = client.post(post_logout.handler, "/logout", {}, csrf=csrf)
    assert refused.status == 403
    assert "refresh the page" in refused.body
    assert session_cookie(refused) is None
    # Nothing was done: the session still works.
    assert client.get(get_dashboard.handler, "/").status == 200


def test_a_token_of_another_session_is_refused(demo: DemoStore) -> None:
    mine = signed_in(Role.OWNER)
    theirs = signed_in(Role.ADMIN)
    assert mine.post(post_logout.handler, "/logout", {}, csrf=theirs.csrf).status == 403


def test_a_role_without_the_capability_gets_the_403_page(demo: DemoStore) -> None:
    from webstore.admin.roles import Capability, require
    from webstore.admin.sessions import check
    from webstore.errors import Forbidden

    client = signed_in(Role.READONLY)
    session = check(get_services(), client.cookie, datetime.now(UTC))
    assert session is not None and session.role is Role.READONLY
    with pytest.raises(Forbidden):
        require(session, Capability.PAYMENTS_WRITE)
    home = client.get(get_dashboard.handler, "/")
    assert home.status == 200
    assert 'href="/staff"' not in home.body  # hidden: the role cannot manage staff


def test_a_session_of_one_store_never_reads_another(demo: DemoStore, other_store: ImportResult) -> None:
    mine = signed_in(Role.OWNER, account_id=1)
    theirs = signed_in(Role.OWNER, account_id=other_store.account_id)
    from webstore.repo.store import StoreRepository

    repo = StoreRepository(get_services().table)
    mine_name = repo.store(1).name
    theirs_name = repo.store(other_store.account_id).name
    assert mine_name != theirs_name
    home = mine.get(get_dashboard.handler, "/").body
    assert mine_name in home and theirs_name not in home
    assert theirs_name in theirs.get(get_dashboard.handler, "/").body
    # A cookie names its account and member: altering either breaks the signature.
    payload, signature = mine.cookie.rsplit(".", 1)
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    assert claims["a"] == 1
    claims["a"] = other_store.account_id
    altered = base64.urlsafe_b64encode(json.dumps(claims, separators=(",", ":")).encode()).rstrip(b"=")
    forged = PanelClient(cookie=f"{altered.decode()}.{signature}", csrf=mine.csrf)
    assert forged.get(get_dashboard.handler, "/").status == 303


def test_the_static_script_is_served_and_nothing_else(demo: DemoStore) -> None:
    client = PanelClient()
    script = client.get(get_static.handler, "/static/htmx.min.js")
    assert script.status == 200 and script.headers["content-type"].startswith("text/javascript")
    assert "htmx" in script.body[:200]
    missing = client.get(get_static.handler, "/static/..%2Fpasswords.py")
    assert missing.status == 404


def test_the_csrf_token_is_in_every_form_of_the_shell(demo: DemoStore) -> None:
    client = signed_in(Role.SUPPORT)
    page = client.get(get_dashboard.handler, "/").body
    assert csrf_of(page) == client.csrf
    assert 'action="/logout"' in page


def test_a_sign_in_posted_from_another_site_is_refused(demo: DemoStore) -> None:
    """Login CSRF: a page elsewhere must not sign the visitor in to an account of its choosing."""
    from tests.support.invocation import invoke
    from tests.support.panel import form_body

    owner = add_staff(Role.OWNER)
    body = form_body({"email": owner.member.email, "password": PASSWORD})
    cases = (
        ({"origin": "https://evil.test"}, 403),
        ({"origin": "null", "sec-fetch-site": "cross-site"}, 403),
        ({"origin": "https://evil.test", "sec-fetch-site": "same-site"}, 403),
        ({"origin": "https://api.test"}, 303),
        ({"origin": "null", "sec-fetch-site": "same-origin"}, 303),  # the panel's own form
    )
    for headers, status in cases:
        response = invoke(
            post_login.handler,
            "POST",
            "/login",
            raw_body=body["raw_body"],
            headers={**body["headers"], **headers},
        )
        assert response.status == status, headers
        assert (session_cookie(response) is not None) == (status == 303)
