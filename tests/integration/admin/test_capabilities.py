"""The capability a panel route declares (`Route.capability`) is the rule, for every route and
every role, through the real handlers: a role without it gets the 403 page and nothing is done;
a role with it is never refused for its role. The navigation shows exactly the sections whose
page the role may open, and the navigation's table is the one the routes declare."""

from __future__ import annotations

import re
from typing import Any

import pytest

from functions.declarations import Interface
from functions.routes import CAPABILITIES_MODULE, Operation, operations, route_capabilities_module
from tests.support.demo import DemoStore
from tests.support.panel import PanelClient, signed_in
from webstore.admin.layout import SECTIONS
from webstore.admin.roles import CAPABILITIES, Role
from webstore.repo.audit_log import AuditLog
from webstore.services import get_services

# A value for each path parameter: one that names nothing (a role that may open the route gets
# its 404 or its form refused, never a 403, and nothing of the demo store changes).
PATH_VALUES = {
    "transaction": "tbx-none",
    "reference": "sub-none",
    "section": "packages",
    "element": "999999",
    "server_id": "999999",
    "endpoint_id": "999999",
    "delivery_id": "none",
    "staff_id": "none",
    "ban_id": "none",
    "player": "Nobody",
    "position": "99",
    "event_id": "none",
    "kind": "receipt",
    "step": "category",
}
_PARAM = re.compile(r"\{(\w+)\}")


def _path(template: str) -> str:
    return _PARAM.sub(lambda m: PATH_VALUES[m.group(1)], template)


def _guarded() -> list[Operation]:
    return [op for op in operations(Interface.ADMIN) if op.route.capability is not None]


def _call(client: PanelClient, op: Operation) -> Any:
    path = _path(op.route.path)
    handler = op.endpoint.__globals__["handler"]
    if op.route.method == "GET":
        return client.get(handler, path)
    return client.post(handler, path, {})


def test_every_panel_route_but_the_sign_in_and_its_files_declares_a_capability_or_any_member() -> None:
    open_to_all = {op.route.operation_id for op in operations(Interface.ADMIN) if op.route.capability is None}
    assert open_to_all == {
        "getLogin", "submitLogin", "getStaticAsset", "submitLogout", "getAccount", "changePassword",
        "startTotp", "confirmTotp", "removeTotp",
    }  # fmt: skip
    assert (
        len(_guarded()) == 78
    )  # Go live, the setup, E-mails and their wording, Tax, Tax report, Shop → Look, Steam key, Discord


@pytest.mark.parametrize("role", list(Role))
def test_each_route_refuses_exactly_the_roles_without_its_capability(demo: DemoStore, role: Role) -> None:
    client = signed_in(role)
    audit_before = AuditLog(get_services().table).page(1).entries
    refused, opened = [], []
    for op in _guarded():
        answer = _call(client, op)
        assert answer.status < 500, (op.route.operation_id, answer.status, answer.body[:400])
        if op.route.capability in CAPABILITIES[role]:
            assert answer.status != 403, (op.route.operation_id, answer.body[:400])
            opened.append(op.route.operation_id)
        else:
            assert answer.status == 403, (op.route.operation_id, answer.status)
            assert "Forbidden" in answer.body and f"({role.label})" in answer.body
            refused.append(op.route.operation_id)
    # Nothing a refused form asked for happened (a permitted one naming nothing changes nothing).
    if role is Role.READONLY:
        assert AuditLog(get_services().table).page(1).entries == audit_before
    assert opened and (refused or role is Role.OWNER)


@pytest.mark.parametrize("role", list(Role))
def test_the_navigation_shows_the_sections_whose_page_the_role_may_open(demo: DemoStore, role: Role) -> None:
    from functions.admin import get_account

    page = signed_in(role).get(get_account.handler, "/account")
    assert page.status == 200
    shown = set(re.findall(r'<nav class="sections".*?</nav>', page.body, re.S)[0].split('href="')[1:])
    hrefs = {each.split('"', 1)[0] for each in shown}
    expected = {s.href for s in SECTIONS if s.capability in CAPABILITIES[role]}
    assert hrefs == expected
    assert (role is Role.SUPPORT) == ("/catalog" not in hrefs)


def test_the_navigation_reads_the_capabilities_the_routes_declare() -> None:
    assert CAPABILITIES_MODULE.read_text() == route_capabilities_module(), (
        "webstore/admin/route_capabilities.py is out of date: regenerate it with `python -m functions.routes`"
    )
    declared = {
        op.route.path: op.route.capability for op in operations(Interface.ADMIN) if op.route.method == "GET"
    }
    for section in SECTIONS:
        assert section.capability == declared[section.href]


def test_a_signed_out_visit_to_a_guarded_page_goes_to_the_sign_in_page(demo: DemoStore) -> None:
    for op in _guarded():
        if op.route.method == "GET":
            answer = _call(PanelClient(), op)
            assert answer.status == 303 and answer.headers["location"].startswith("/login"), op
