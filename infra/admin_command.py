"""`webstore admin create-owner --store ID --email E`: the first owner of a store's control panel.

Against a deployed table (`--table`, `--region`) or a running `webstore serve` (`--local
<credentials file>`). The password is generated, printed once and never stored in clear (only its
argon2id hash is in the table): keep it, or create another owner later.
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


def add_admin_command(commands: Any) -> None:
    admin = commands.add_parser("admin", help="the control panel's staff accounts")
    actions = admin.add_subparsers(dest="admin_command", required=True)
    create = actions.add_parser(
        "create-owner",
        help="create a store's owner account and print its password once",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    create.add_argument(
        "--store", type=int, required=True, metavar="ID", help="the store's id (catalog file)"
    )
    create.add_argument("--email", required=True, help="the owner's sign-in address")
    add_target_options(create)


def run_admin_command(args: argparse.Namespace) -> int:
    try:
        return create_owner_command(args)
    except ToolFailure as failure:
        print(f"webstore admin: {failure}", file=sys.stderr)
        return 2


def create_owner_command(args: argparse.Namespace) -> int:
    from webstore.admin.staff import create_owner

    target = target_from(args)
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
            created = create_owner(services, args.store, args.email, datetime.now(UTC))
        except DomainError as error:
            raise ToolFailure(error.detail) from None
    print(f"Owner of store {args.store} created in {target.table}:")
    print(f"  admin_email        {created.member.email}")
    print(f"  admin_password     {created.password}")
    print("  (shown once: only its hash is stored)")
    return 0
