"""`webstore init`: start an empty store — the store, its first server and its owner account in
one step, no catalog file to write.

    webstore init --name "My Server" --currency EUR --owner-email me@example.com \\
        --table <TableName> --region <region> --admin-url <AdminUrl> --storefront-url <StorefrontUrl>

(or `--local <credentials file>` for a running `webstore serve`). A flag left out is asked for
when the terminal is interactive. Prints, once, the owner's password, the store's public token
and checkout API key, and the server's secret (only their hashes are stored), with the panel's
address: sign in there and finish in Go live (docs/go-live.md).
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from typing import Any

from infra.tools import ToolFailure, add_target_options, check_table, one_line_failures, target_from
from webstore.db import Table
from webstore.errors import DomainError
from webstore.events import InProcessBus
from webstore.secret_box import secret_box
from webstore.services import Services
from webstore.settings import Settings

ASKED = (
    ("name", "Store name"),
    ("currency", "Currency (ISO code, e.g. EUR)"),
    ("owner_email", "Owner e-mail"),
)


def add_init_command(commands: Any) -> None:
    init = commands.add_parser(
        "init",
        help="start an empty store: the store, its first server and its owner account",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    init.add_argument("--name", help="the store's name")
    init.add_argument("--currency", help="its currency (ISO 4217 code)")
    init.add_argument("--owner-email", help="the owner's sign-in address for the panel")
    init.add_argument("--store", type=int, default=1, metavar="ID", help="the store's id (default 1)")
    init.add_argument("--server-name", default="Server", help="the first game server's name")
    init.add_argument("--webstore-url", default="", help="the store's own site, if it has one")
    init.add_argument("--admin-url", default="", help="the panel's address (the stack's AdminUrl output)")
    init.add_argument(
        "--storefront-url", default="", help="the storefront's address (the stack's StorefrontUrl output)"
    )
    add_target_options(init)


def run_init_command(args: argparse.Namespace) -> int:
    try:
        return _init(args)
    except ToolFailure as failure:
        print(f"webstore init: {failure}", file=sys.stderr)
        return 2


def _ask(args: argparse.Namespace) -> None:
    for name, question in ASKED:
        if getattr(args, name):
            continue
        if not sys.stdin.isatty():
            raise ToolFailure(f"--{name.replace('_', '-')} is required")
        setattr(args, name, input(f"{question}: ").strip())


def _init(args: argparse.Namespace) -> int:
    from webstore.admin.store_setup import create_store

    _ask(args)
    target = target_from(args)
    local = target.local or {}
    settings = Settings(**({"region": target.region} if target.region else {}))
    with one_line_failures(target):
        client = target.client()
        check_table(target, client)
        services = Services(
            settings=settings,
            table=Table(client, target.table),
            publisher=InProcessBus(),
            secrets=secret_box(settings),
        )
        try:
            created = create_store(
                services,
                store_id=args.store,
                name=args.name,
                currency=args.currency,
                owner_email=args.owner_email,
                server_name=args.server_name,
                webstore_url=args.webstore_url,
                now=datetime.now(UTC),
            )
        except DomainError as error:
            raise ToolFailure(error.detail) from None
    admin_url = args.admin_url or local.get("admin_url") or "<the stack's AdminUrl>"
    storefront = (args.storefront_url or local.get("storefront_url") or "<StorefrontUrl>").rstrip("/")
    plugin_url = local.get("operator_url") or "<the stack's OperatorUrl>"
    print(f"Store {created.account_id} created in {target.table}. Shown once (only hashes are stored):")
    rows = {
        "admin_url": admin_url,
        "admin_email": created.owner_email,
        "admin_password": created.owner_password,
        "public_token": created.public_token,
        "headless_url": f"{storefront}/api/accounts/{created.public_token}",
        "checkout_api_key": created.checkout_api_key,
        "plugin_url": plugin_url,
        f"server {created.server_id} secret": created.server_secret,
    }
    for label, value in rows.items():
        print(f"  {label:20} {value}")
    print(f"Next: sign in at {admin_url} and open Go live (Stripe, servers, the shop's keys).")
    return 0
