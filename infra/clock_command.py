"""`webstore clock run --until <instant>`: process every subscription item due up to an instant.

The same `run_due` the scheduled function (AWS) and `serve`'s background clock run, once, "as of"
the instant given: how owners and tests see a month pass. Against a deployed table (`--table`,
`--region`, and the public URLs links are built from) or a running `webstore serve` (`--local
<credentials file>`). Its events ride its transactions (the outbox): in a stage the table's
stream publishes them. Locally the renewals' events are delivered to the store's webhooks from
this process, as serve would deliver them (this process's table client publishes its committed
outbox items: webstore.local_stream; the file carries the key that opens their signing
secrets); the command waits for those deliveries (`--webhook-wait`) before it exits.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from datetime import datetime
from typing import Any

from infra.tools import Target, ToolFailure, add_target_options, check_table, one_line_failures, target_from
from webstore import services as services_module
from webstore.db import Table
from webstore.discord import local as local_discord
from webstore.mail import local as local_mail
from webstore.services import Services
from webstore.settings import Settings
from webstore.subscriptions import dead_letters
from webstore.subscriptions.processor import run_due
from webstore.webhooks import local as local_webhooks
from webstore.webhooks.local import LocalDispatcher

DEFAULT_WEBHOOK_WAIT = 30.0
# The deployed stack's settings a run needs, as the flags (and stack outputs) that give them.
DEPLOYED_FLAGS = {
    "WEBSTORE_STOREFRONT_URL": "--storefront-url (StorefrontUrl)",
    "WEBSTORE_OPERATOR_URL": "--operator-url (OperatorUrl)",
}


def add_clock_command(commands: Any) -> None:
    clock = commands.add_parser(
        "clock", help="process subscription work that is due (renewals, retries, expiry)"
    )
    actions = clock.add_subparsers(dest="clock_command", required=True)
    run = actions.add_parser(
        "run",
        help="process everything due up to an instant, once, and print what was done",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    run.add_argument(
        "--until",
        required=True,
        metavar="INSTANT",
        help="ISO-8601 instant with its offset, e.g. 2026-12-23T12:00:00Z: items due up to it are processed",
    )
    add_target_options(run)
    deployed = run.add_argument_group("with --table (default: the WEBSTORE_* environment)")
    deployed.add_argument(
        "--event-bus",
        help="not needed: a run's events ride its transactions and the stage's table stream "
        "publishes them (accepted for older scripts)",
    )
    deployed.add_argument("--storefront-url", help="the stack's StorefrontUrl output (links in events)")
    deployed.add_argument("--operator-url", help="the stack's OperatorUrl output")
    run.add_argument("--limit", type=int, help="process at most this many items")
    run.add_argument(
        "--webhook-wait",
        type=float,
        default=DEFAULT_WEBHOOK_WAIT,
        metavar="SECONDS",
        help=f"--local: wait this long for webhook deliveries (default {DEFAULT_WEBHOOK_WAIT:g})",
    )

    parked = actions.add_parser(
        "parked",
        help="list the schedule items parked after failing repeatedly; --redrive puts them back",
    )
    add_target_options(parked)
    parked.add_argument(
        "--redrive", action="store_true", help="put every parked item back in the schedule, due at its time"
    )


def parse_instant(text: str) -> datetime:
    """An ISO-8601 instant with an offset (`Z` or `+02:00`); a bare local time is ambiguous."""
    try:
        instant = datetime.fromisoformat(text)
    except ValueError:
        raise ToolFailure(
            f"--until {text!r} is not an ISO-8601 instant: write e.g. 2026-12-23T12:00:00Z"
        ) from None
    if instant.tzinfo is None:
        raise ToolFailure(f"--until {text!r} has no UTC offset: add one, e.g. {text}Z or {text}+02:00")
    return instant


def run_clock_command(args: argparse.Namespace) -> int:
    try:
        return _parked(args) if args.clock_command == "parked" else _run(args)
    except ToolFailure as failure:
        print(f"webstore clock {args.clock_command}: {failure}", file=sys.stderr)
        return 2


def _parked(args: argparse.Namespace) -> int:
    """The dead letters of the schedule (webstore.subscriptions.dead_letters), or redrive them."""
    target = target_from(args)
    with one_line_failures(target):
        client = target.client()
        check_table(target, client)
        services = dataclasses.replace(
            services_module.build_services(Settings(table_name=target.table, events="local")),
            table=Table(client, target.table),
        )
        items = dead_letters.dead_letters(services)
        for item in items:
            print(
                f"{item['kind']}: account {item['account_id']} {item['reference']} "
                f"(due {item['due_at']}, {item['attempts']} attempts, parked {item['parked_at']})"
            )
        if args.redrive:
            moved = dead_letters.redrive(services)
            print(f"{moved} item(s) put back in the schedule")
        else:
            print(f"{len(items)} item(s) parked" + (": fix the cause, then --redrive" if items else ""))
    return 0


def _run(args: argparse.Namespace) -> int:
    until = parse_instant(args.until)
    if args.limit is not None and args.limit < 1:
        raise ToolFailure("--limit must be at least 1")
    target = target_from(args)
    dispatcher: LocalDispatcher | None = None
    mailer: LocalDispatcher | None = None
    roles: LocalDispatcher | None = None
    with one_line_failures(target):
        client = target.client()
        check_table(target, client)
        services = dataclasses.replace(build_services(args, target), table=Table(client, target.table))
        if target.local is not None:  # events go to the store's webhooks from this process
            services.stream = services_module.local_stream(services.table)
            dispatcher = local_webhooks.subscribe(services_module.local_bus(), services)
            mailer = local_mail.subscribe(services_module.local_bus(), services)
            roles = local_discord.subscribe(services_module.local_bus(), services)
        try:
            report = run_due(services, until, limit=args.limit)
        finally:
            if dispatcher is not None:
                delivered = dispatcher.wait_idle(args.webhook_wait)
                dispatcher.stop()
            if mailer is not None:
                mailer.wait_idle(args.webhook_wait)
                mailer.stop()
            if roles is not None:  # Discord roles (docs/discord.md): a renewal sends nothing
                roles.wait_idle(args.webhook_wait)
                roles.stop()
            if services.stream is not None:
                services.stream.flush()  # the delivered events' outbox items, deleted
    for outcome in report.outcomes:
        print(outcome.describe())
    print(report.summary())
    if dispatcher is not None and not delivered:
        print(
            f"webstore clock run: {dispatcher.pending()} webhook event(s) still owed a delivery after "
            f"{args.webhook_wait:g} s were left in the table; serve delivers them when it starts next "
            "(raise --webhook-wait; check the receivers)",
            file=sys.stderr,
        )
        return 1
    return 0


def build_services(args: argparse.Namespace, target: Target) -> Services:
    """The composition root of a run, configured from the flags (or the local credentials file)
    instead of a function's environment."""
    local = target.local
    if local is not None:
        values: dict[str, Any] = {
            "table_name": local["table"],
            "region": local["region"],
            "dynamodb_endpoint": local["dynamodb_endpoint"],
            "events": "local",
            "storefront_url": local.get("storefront_url", ""),
            "operator_url": local.get("operator_url", local.get("plugin_url", "")),
            "allow_private_webhooks": True,  # serve's receivers are on loopback, as serve allows
            **({"webhook_key": local["webhook_key"]} if local.get("webhook_key") else {}),
            **(local.get("mail") or {}),  # serve's e-mail transport (.eml files, --smtp)
            **(local.get("discord") or {}),  # serve's Discord (--discord-base-url)
        }
    else:
        given = {
            "table_name": target.table,
            "region": target.region,
            "dynamodb_endpoint": args.dynamodb_endpoint,
            "events": "eventbridge",
            "event_bus_name": args.event_bus,
            "storefront_url": args.storefront_url,
            "operator_url": args.operator_url,
        }
        values = {name: value for name, value in given.items() if value is not None}
    settings = Settings(**values)
    # The bus is not needed: the run writes its events in its transactions (webstore.repo.outbox).
    missing = [
        DEPLOYED_FLAGS.get(name, name) for name in settings.missing() if name != "WEBSTORE_EVENT_BUS_NAME"
    ]
    if missing:
        raise ToolFailure(f"with --table, also pass {', '.join(missing)}")
    return services_module.build_services(settings)
