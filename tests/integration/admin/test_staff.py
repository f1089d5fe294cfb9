"""The staff page and one's own account through the real handlers: invitations (password shown
once), role changes and removals (owners only, never oneself, recorded in the audit log), the
password change, and the optional second factor (TOTP)."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from html import escape

import time_machine

from functions.admin import (
    get_account,
    get_dashboard,
    get_staff,
    post_account_password,
    post_account_totp,
    post_account_totp_confirm,
    post_account_totp_remove,
    post_login,
    post_staff,
    post_staff_remove,
    post_staff_role,
)
from tests.support.demo import DemoStore
from tests.support.panel import PASSWORD, PanelClient, add_staff, session_cookie, signed_in
from webstore.admin import totp
from webstore.admin.roles import Role
from webstore.catalog_import import ImportResult
from webstore.repo.audit_log import AuditLog
from webstore.repo.staff import StaffRepository
from webstore.services import get_services

_PASSWORD = re.compile(r'<code id="password">([^<]+)</code>')


def audit_actions(account_id: int = 1) -> list[tuple[str, str, str]]:
    page = AuditLog(get_services().table).page(account_id)
    return [(e.actor, e.action, e.summary) for e in page.entries]


def store_name_of(account_id: int) -> str:
    from webstore.repo.store import StoreRepository

    return StoreRepository(get_services().table).store(account_id).name


def staff_id_of(email: str) -> str:
    login = StaffRepository(get_services().table).login_of(email)
    assert login is not None
    return login.staff_id


def test_an_owner_invites_a_member_who_signs_in_with_the_password_shown_once(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    page = owner.get(get_staff.handler, "/staff")
    assert page.status == 200 and 'id="invite"' in page.body
    invited = owner.post(post_staff.handler, "/staff", {"email": "Helper@Example.com", "role": "support"})
    assert invited.status == 200
    password = _PASSWORD.search(invited.body)
    assert password and "helper@example.com" in invited.body
    assert invited.headers["cache-control"] == "no-store"
    # Never shown again: the staff page lists the member, not the password.
    listed = owner.get(get_staff.handler, "/staff").body
    assert "helper@example.com" in listed and password.group(1) not in listed
    helper = PanelClient()
    assert helper.sign_in("helper@example.com", password.group(1)).status == 303
    home = helper.get(get_dashboard.handler, "/").body
    assert 'href="/payments"' in home and 'href="/catalog"' not in home and 'href="/staff"' not in home
    assert ("owner@store1.test", "staff.invite", "Invited helper@example.com as Support") in audit_actions()


def test_an_invitation_is_checked_like_every_form(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    bad_email = owner.post(post_staff.handler, "/staff", {"email": "not-an-address", "role": "admin"})
    assert bad_email.status == 422 and "email must be an e-mail address" in bad_email.body
    bad_role = owner.post(post_staff.handler, "/staff", {"email": "a@example.com", "role": "god"})
    assert bad_role.status == 422 and "role must be one of owner, admin, support, readonly" in bad_role.body
    taken = owner.post(post_staff.handler, "/staff", {"email": "owner@store1.test", "role": "admin"})
    assert taken.status == 409 and "already has a staff account" in taken.body
    assert [a for a in audit_actions() if a[1] == "staff.invite"] == []


def test_only_owners_manage_staff(demo: DemoStore) -> None:
    add_staff(Role.SUPPORT)
    target = staff_id_of("support@store1.test")
    admin = signed_in(Role.ADMIN)
    page = admin.get(get_staff.handler, "/staff")
    assert page.status == 200 and "support@store1.test" in page.body
    assert 'id="invite"' not in page.body and "/remove" not in page.body  # hidden…
    refused = admin.post(post_staff.handler, "/staff", {"email": "x@example.com", "role": "owner"})
    assert refused.status == 403  # …and refused
    assert admin.post(post_staff_remove.handler, f"/staff/{target}/remove", {}).status == 403
    readonly = signed_in(Role.READONLY)
    forbidden = readonly.get(get_staff.handler, "/staff")
    assert forbidden.status == 403 and "may not do this" in forbidden.body
    assert "Back to the dashboard" in forbidden.body  # the panel's 403 page, not the shop's
    assert StaffRepository(get_services().table).login_of("x@example.com") is None


def test_an_owner_changes_a_role_and_removes_a_member_but_not_themselves(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    member = signed_in(Role.SUPPORT)
    target = staff_id_of("support@store1.test")
    changed = owner.post(post_staff_role.handler, f"/staff/{target}/role", {"role": "readonly"})
    assert changed.status == 303 and changed.headers["location"] == "/staff?done=role"
    assert "Role changed." in owner.get(get_staff.handler, "/staff", {"done": "role"}).body
    # The member's next request has the new role (no new sign-in needed).
    assert 'href="/payments"' in member.get(get_dashboard.handler, "/").body
    assert "Read-only" in member.get(get_dashboard.handler, "/").body
    mine = staff_id_of("owner@store1.test")
    own = owner.post(post_staff_role.handler, f"/staff/{mine}/role", {"role": "support"})
    assert own.status == 422 and "cannot change the role of yourself" in own.body
    # The staff page again, in the shell headed by the store, with the error above its forms.
    assert 'id="form-error"' in own.body and 'id="invite"' in own.body
    assert "Back to the dashboard" not in own.body  # not the panel's error page
    assert f"<strong>{escape(store_name_of(1))}</strong>" in own.body
    self_removal = owner.post(post_staff_remove.handler, f"/staff/{mine}/remove", {})
    assert self_removal.status == 422 and 'id="form-error"' in self_removal.body
    assert "cannot remove yourself" in self_removal.body and 'id="staff"' in self_removal.body
    removed = owner.post(post_staff_remove.handler, f"/staff/{target}/remove", {})
    assert removed.status == 303
    assert member.get(get_dashboard.handler, "/").status == 303  # signed out at once
    assert owner.post(post_staff_remove.handler, f"/staff/{target}/remove", {}).status == 404
    actions = [a[1] for a in audit_actions()]
    assert actions.count("staff.role") == 1 and actions.count("staff.remove") == 1


def test_an_owner_cannot_touch_another_stores_staff(demo: DemoStore, other_store: ImportResult) -> None:
    theirs = add_staff(Role.ADMIN, account_id=other_store.account_id)
    owner = signed_in(Role.OWNER)
    target = theirs.member.staff_id
    assert owner.post(post_staff_role.handler, f"/staff/{target}/role", {"role": "readonly"}).status == 404
    assert owner.post(post_staff_remove.handler, f"/staff/{target}/remove", {}).status == 404
    assert theirs.member.email not in owner.get(get_staff.handler, "/staff").body
    kept = StaffRepository(get_services().table).member(other_store.account_id, target)
    assert kept is not None and kept.role is Role.ADMIN


def test_a_password_change_ends_the_other_sessions_and_keeps_this_one(demo: DemoStore) -> None:
    here = signed_in(Role.ADMIN)
    elsewhere = PanelClient()
    assert elsewhere.sign_in("admin@store1.test").status == 303
    wrong = here.post(
        post_account_password.handler,
        "/account/password",
        {"current": "not it", "new": "a brand new password", "confirm": "a brand new password"},
    )
    assert wrong.status == 422 and "not your current password" in wrong.body
    short = here.post(
        post_account_password.handler,
        "/account/password",
        {"current": PASSWORD, "new": "short", "confirm": "short"},
    )
    assert short.status == 422 and "at least 10 characters" in short.body
    changed = here.post(
        post_account_password.handler,
        "/account/password",
        {"current": PASSWORD, "new": "a brand new password", "confirm": "a brand new password"},
    )
    assert changed.status == 303 and changed.headers["location"] == "/account?done=password"
    here.cookie = session_cookie(changed) or ""
    assert here.get(get_account.handler, "/account").status == 200
    assert elsewhere.get(get_dashboard.handler, "/").status == 303
    assert PanelClient().sign_in("admin@store1.test").status == 401
    assert (
        PanelClient(source_ip="198.51.100.8").sign_in("admin@store1.test", "a brand new password").status
        == 303
    )


def test_a_second_factor_is_enrolled_then_asked_for_at_sign_in(demo: DemoStore) -> None:
    start = datetime(2030, 3, 1, 12, 0, tzinfo=UTC)
    with time_machine.travel(start, tick=False) as traveller:
        client = signed_in(Role.OWNER)
        enrol = client.post(post_account_totp.handler, "/account/totp", {})
        assert enrol.status == 200
        secret = re.search(r'<code id="totp-secret">([A-Z2-7]+)</code>', enrol.body)
        sealed = re.search(r'name="sealed" value="([^"]+)"', enrol.body)
        assert secret and sealed and "otpauth://totp/" in enrol.body
        code = totp.code_at(secret.group(1), start)
        not_it = "000000" if code != "000000" else "111111"
        wrong = client.post(
            post_account_totp_confirm.handler,
            "/account/totp/confirm",
            {"sealed": sealed.group(1), "code": not_it},
        )
        assert wrong.status == 422 and "does not match" in wrong.body
        confirmed = client.post(
            post_account_totp_confirm.handler,
            "/account/totp/confirm",
            {"sealed": sealed.group(1), "code": code},
        )
        assert confirmed.status == 303
        assert 'id="totp-on"' in client.get(get_account.handler, "/account").body
        assert secret.group(1) not in client.get(get_account.handler, "/account").body  # shown once

        traveller.move_to(start + timedelta(minutes=5))
        browser = PanelClient()
        assert browser.sign_in("owner@store1.test").status == 401  # the password alone
        now_code = totp.code_at(secret.group(1), start + timedelta(minutes=5))
        with_code = browser.post(
            post_login.handler,
            "/login",
            {"email": "owner@store1.test", "password": PASSWORD, "code": now_code},
            csrf="",
        )
        assert with_code.status == 303
        replay = PanelClient(source_ip="198.51.100.9").post(
            post_login.handler,
            "/login",
            {"email": "owner@store1.test", "password": PASSWORD, "code": now_code},
            csrf="",
        )
        assert replay.status == 401  # a code works once

        removed = client.post(
            post_account_totp_remove.handler, "/account/totp/remove", {"password": PASSWORD}
        )
        assert removed.status == 303
        assert PanelClient(source_ip="198.51.100.10").sign_in("owner@store1.test").status == 303
    actions = [a[2] for a in audit_actions() if a[1] == "staff.totp"]
    assert actions == [
        "owner@store1.test removed their second factor",
        "owner@store1.test enrolled a second factor",
    ]


def test_what_was_typed_is_escaped_on_the_staff_pages(demo: DemoStore) -> None:
    owner = signed_in(Role.OWNER)
    typed = "<script>alert(1)</script>@x.io"
    invited = owner.post(post_staff.handler, "/staff", {"email": typed, "role": "readonly"})
    assert invited.status == 200
    for body in (invited.body, owner.get(get_staff.handler, "/staff").body):
        assert "<script>alert(1)</script>" not in body
        assert "&lt;script&gt;alert(1)&lt;/script&gt;@x.io" in body


def test_an_address_is_unique_per_store_and_no_store_learns_of_another(
    demo: DemoStore, other_store: ImportResult
) -> None:
    """Store 2's owner invites an address that is staff in store 1: invited as anyone else is
    (no 409 telling them it is staff elsewhere). The address then has two passwords, and each
    signs in to its own store; inviting it twice in the same store is still refused."""
    from webstore.repo.store import StoreRepository

    add_staff(Role.SUPPORT, account_id=1, email="shared@example.com")
    theirs = signed_in(Role.OWNER, account_id=2)
    invited = theirs.post(post_staff.handler, "/staff", {"email": "shared@example.com", "role": "admin"})
    assert invited.status == 200, invited.body
    password = _PASSWORD.search(invited.body)
    assert password
    again = theirs.post(post_staff.handler, "/staff", {"email": "Shared@Example.com", "role": "support"})
    assert again.status == 409 and "already has a staff account in this store" in again.body

    stores = StoreRepository(get_services().table)
    for account_id, secret in ((1, PASSWORD), (2, password.group(1))):
        client = PanelClient()
        assert client.sign_in("shared@example.com", secret).status == 303
        home = client.get(get_dashboard.handler, "/").body
        assert stores.store(account_id).name in home
        assert stores.store(3 - account_id).name not in home
    assert PanelClient().sign_in("shared@example.com", "not the password").status == 401

    # Removed from store 2, the address still signs in to store 1.
    member = StaffRepository(get_services().table).login_of("shared@example.com", 2)
    assert member is not None
    removed = theirs.post(post_staff_remove.handler, f"/staff/{member.staff_id}/remove", {})
    assert removed.status == 303, removed.body
    assert PanelClient().sign_in("shared@example.com", password.group(1)).status == 401
    assert PanelClient().sign_in("shared@example.com").status == 303
