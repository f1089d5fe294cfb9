"""The `webstore` command: run the local stack, or import a catalog into any table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from infra.admin_command import add_admin_command, run_admin_command
from infra.background_clock import DEFAULT_CLOCK_INTERVAL
from infra.clock_command import add_clock_command, run_clock_command
from infra.init_command import add_init_command, run_init_command
from infra.state import DEFAULT_STATE_DIR, write_private
from infra.tools import Target, ToolFailure, add_target_options, check_table, one_line_failures, target_from
from webstore import keys
from webstore.catalog_export import catalog_text, export_catalog
from webstore.catalog_file import CatalogError, load_catalog, stale_lines
from webstore.catalog_import import SecretMissing, StaleCatalog, import_catalog, preview_import
from webstore.db import Table
from webstore.errors import DomainError, NotFound
from webstore.gateway_settings import stripe_webhook_url
from webstore.secret_box import NoKeyConfigured, SealBroken, secret_box
from webstore.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="webstore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser(
        "serve", help="run the shop, storefront, operator and control panel locally with the demo store"
    )
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--storefront-port", type=int, default=8080)
    serve.add_argument("--operator-port", type=int, default=8081)
    serve.add_argument("--admin-port", type=int, default=8082, help="the control panel's port")
    serve.add_argument("--shop-port", type=int, default=8083, help="the players' shop's port")
    serve.add_argument("--table", default="webstore", help="table name (created if missing)")
    serve.add_argument("--dynamodb-endpoint", help="a real DynamoDB endpoint instead of the embedded one")
    serve.add_argument("--region", default="us-east-1")
    serve.add_argument("--catalog", type=Path, help="catalog file to import instead of the demo store")
    serve.add_argument("--no-catalog", action="store_true", help="import nothing")
    serve.add_argument(
        "--force",
        action="store_true",
        help="import the catalog file even when it has not changed since its last import, over what "
        "the panel changed since, removing what the file does not have (the audit log says so)",
    )
    serve.add_argument("--next-check", type=int, help="seconds between queue polls, for every server")
    serve.add_argument(
        "--identity-base-url",
        metavar="URL",
        help="Mojang's profile lookup (or a stand-in) for online-mode stores (WEBSTORE_IDENTITY_BASE_URL)",
    )
    serve.add_argument(
        "--steam-openid-url",
        metavar="URL",
        help="Steam's OpenID endpoint (or a stand-in) for stores of Steam games (WEBSTORE_STEAM_OPENID_URL)",
    )
    serve.add_argument(
        "--discord-base-url",
        metavar="URL",
        help="Discord (or a stand-in, tests/support/discord_standin.py) for the stores' Discord roles: "
        "its API at URL/api/v10, its OAuth2 consent page at URL/oauth2/authorize",
    )
    serve.add_argument("--credentials-file", type=Path, help="write the URLs and keys here as JSON")
    serve.add_argument(
        "--state-dir",
        type=Path,
        default=DEFAULT_STATE_DIR,
        help="keep the store, baskets, payments and keys here across restarts (default: .webstore)",
    )
    serve.add_argument(
        "--cors-origins",
        metavar="ORIGIN[,ORIGIN]",
        help="origins browsers may call the storefront from (default: cdk.json's corsOrigins, else *)",
    )
    serve.add_argument("--fresh", action="store_true", help="start over: forget what --state-dir holds")
    serve.add_argument(
        "--trusted-proxy",
        metavar="ADDRESS[,ADDRESS]",
        help="believe X-Forwarded-For only from this proxy (default: the socket's address, as API Gateway)",
    )
    serve.add_argument(
        "--smtp",
        metavar="HOST:PORT",
        type=_smtp_relay,
        help="relay players' e-mails to this SMTP server (default: .eml files in --state-dir's mail/)",
    )
    serve.add_argument(
        "--stripe-api-base",
        metavar="URL",
        help="send the stores' Stripe calls here (a localstripe address) instead of Stripe's API",
    )
    serve.add_argument(
        "--webhook",
        action="append",
        default=[],
        metavar="URL[#SECRET]",
        help="send the store's webhooks to this receiver (repeatable); signing secret after '#'",
    )
    serve.add_argument(
        "--clock-interval",
        type=float,
        default=DEFAULT_CLOCK_INTERVAL,
        metavar="SECONDS",
        help=f"process due subscription work every SECONDS (default {DEFAULT_CLOCK_INTERVAL:g}; 0: never)",
    )

    importer = commands.add_parser("import", help="import (or re-import) a catalog file into a table")
    importer.add_argument("catalog", type=Path)
    add_target_options(importer)
    importer.add_argument("--create-table", action="store_true", help="create the table if it does not exist")
    importer.add_argument(
        "--webhook-key-secret",
        default=None,
        metavar="ARN",
        help="Secrets Manager secret sealing webhook signing secrets (the stack's WebhookKeySecret output); "
        "needed when the catalog has webhooks or Stripe keys",
    )
    importer.add_argument(
        "--storefront-url",
        default=None,
        metavar="URL",
        help="the storefront's public URL (the stack's output), to print the Stripe webhook URL in full",
    )
    add_clock_command(commands)
    add_admin_command(commands)
    add_init_command(commands)

    importer.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")
    importer.add_argument(
        "--force",
        action="store_true",
        help="apply a file older than the store (exported before changes made since) and remove what "
        "the file does not have even when it was made outside it (the audit log says so)",
    )

    exporter = commands.add_parser(
        "export", help="write a store back as a catalog file (re-importing it changes nothing)"
    )
    exporter.add_argument("output", type=Path, nargs="?", help="the file to write (default: standard output)")
    add_target_options(exporter)
    exporter.add_argument(
        "--store", type=int, metavar="ID", help="the store's id (default with --local: the served store)"
    )
    exporter.add_argument(
        "--with-secrets",
        action="store_true",
        help="write webhook signing secrets and Stripe keys in the clear (default: left out; a re-import "
        "keeps the stored ones)",
    )
    exporter.add_argument(
        "--webhook-key-secret",
        default=None,
        metavar="ARN",
        help="Secrets Manager secret that sealed them (the stack's WebhookKeySecret output); "
        "needed with --with-secrets",
    )

    catalog_tools = commands.add_parser("catalog", help="the catalog file's format")
    catalog_commands = catalog_tools.add_subparsers(dest="catalog_command", required=True)
    catalog_commands.add_parser("schema", help="print the catalog file's JSON Schema (docs/catalog.md)")

    args = parser.parse_args(argv)
    if args.command == "catalog":
        from webstore.catalog_file import schema_text

        sys.stdout.write(schema_text())
        return 0
    if args.command == "serve":
        from infra.local import DEMO_CATALOG, LocalConfig, run

        return run(
            LocalConfig(
                host=args.host,
                storefront_port=args.storefront_port,
                operator_port=args.operator_port,
                admin_port=args.admin_port,
                shop_port=args.shop_port,
                table_name=args.table,
                dynamodb_endpoint=args.dynamodb_endpoint,
                region=args.region,
                catalog=None if args.no_catalog else (args.catalog or DEMO_CATALOG),
                next_check=args.next_check,
                identity_base_url=args.identity_base_url,
                steam_openid_url=args.steam_openid_url,
                credentials_file=args.credentials_file,
                state_dir=args.state_dir,
                fresh=args.fresh,
                cors_origins=args.cors_origins,
                webhooks=tuple(_webhook(value) for value in args.webhook),
                trusted_proxy=args.trusted_proxy,
                clock_interval=args.clock_interval,
                stripe_api_base=args.stripe_api_base,
                discord_base_url=args.discord_base_url,
                force=args.force,
                smtp=args.smtp,
            )
        )
    if args.command == "clock":
        return run_clock_command(args)
    if args.command == "admin":
        return run_admin_command(args)
    if args.command == "init":
        return run_init_command(args)
    command = export_command if args.command == "export" else import_command
    try:
        return command(args)
    except ToolFailure as failure:
        print(f"webstore {args.command}: {failure}", file=sys.stderr)
        return 2


def import_command(args: argparse.Namespace) -> int:
    try:
        catalog = load_catalog(args.catalog)
    except CatalogError as error:
        for problem in error.problems:
            print(f"webstore import: {problem}", file=sys.stderr)
        return 2
    target = target_from(args)
    settings = _tool_settings(target, args.webhook_key_secret)
    with one_line_failures(target, can_create=True):
        client = target.client()
        check_table(target, client, create=args.create_table and not args.dry_run)
        table = Table(client, target.table)
        try:
            if args.dry_run:
                changes = preview_import(table, catalog, box=secret_box(settings), force=args.force)
                print(
                    f"Would change store {catalog.store.id} in {target.table}: {changes.summary()} (dry run)"
                )
                return 0
            result = import_catalog(table, catalog, box=secret_box(settings), force=args.force)
        except StaleCatalog as stale:
            for line in stale_lines(stale, str(args.catalog), f"webstore import {args.catalog}"):
                print(f"webstore import: {line}" if not line.startswith(" ") else line, file=sys.stderr)
            return 2
        except NoKeyConfigured:
            raise ToolFailure(
                "the catalog has webhooks or Stripe keys; pass --webhook-key-secret (the stack's "
                "WebhookKeySecret output) so their secrets can be sealed"
            ) from None
        except SecretMissing as missing:
            raise ToolFailure(f"{args.catalog}: {missing}") from None
        except DomainError as refused:  # a change's rule (a card's number, a coupon's code)
            raise ToolFailure(f"{args.catalog}: {refused}") from None
    print(f"Imported store {result.account_id} into {target.table}: {result.changes.summary()}")
    print(f"  public_token       {result.public_token}")
    print(f"  checkout_api_key   {result.checkout_api_key or '(unchanged; only its hash is stored)'}")
    for server_id, secret in result.server_secrets.items():
        print(f"  server {server_id} secret    {secret or '(unchanged; only its hash is stored)'}")
    if catalog.gateways.stripe:
        storefront = (args.storefront_url or "<storefront URL>").rstrip("/")
        print(f"  stripe_webhook_url {stripe_webhook_url(storefront, result.public_token)}")
        print("    (register it in the Stripe dashboard: Developers > Webhooks; see docs/stripe.md)")
    return 0


def export_command(args: argparse.Namespace) -> int:
    target = target_from(args)
    account_id = args.store or _served_store(target)
    settings = _tool_settings(target, args.webhook_key_secret)
    with one_line_failures(target):
        client = target.client()
        check_table(target, client)
        try:
            catalog = export_catalog(
                Table(client, target.table),
                account_id,
                box=secret_box(settings) if args.with_secrets else None,
            )
        except NotFound:
            raise ToolFailure(f"{target.describe()} has no store {account_id}: check --store") from None
        except NoKeyConfigured:
            raise ToolFailure(
                "--with-secrets needs the key that sealed them: pass --webhook-key-secret (the stack's "
                "WebhookKeySecret output)"
            ) from None
        except SealBroken:
            raise ToolFailure(
                "the stored secrets do not open with this key: pass the stack's own --webhook-key-secret"
            ) from None
    text = catalog_text(catalog)
    if args.output is None:
        sys.stdout.write(text)
        return 0
    try:
        if args.with_secrets:
            write_private(args.output, text)
        else:
            args.output.write_text(text, encoding="utf-8")
    except OSError as error:
        raise ToolFailure(f"cannot write {args.output} ({error.strerror}): check the path") from None
    secrets = "with its secrets (keep the file private)" if args.with_secrets else "secrets left out"
    print(f"Exported store {account_id} from {target.table} to {args.output}: {secrets}", file=sys.stderr)
    return 0


def _served_store(target: Target) -> int:
    """With --local, the store `webstore serve` imported (its public token names it)."""
    token = (target.local or {}).get("public_token")
    if not isinstance(token, str):
        raise ToolFailure("name the store: --store <id>")
    try:
        return keys.account_of(token)
    except NotFound:
        raise ToolFailure("name the store: --store <id>") from None


def _tool_settings(target: Target, webhook_key_secret: str | None) -> Settings:
    """The settings a tool seals and opens secrets with: the local stack's key, or the stack's secret."""
    local_key = (target.local or {}).get("webhook_key")
    return Settings(
        **({"region": target.region} if target.region else {}),
        **({"webhook_key_secret": webhook_key_secret} if webhook_key_secret else {}),
        **({"webhook_key": local_key} if local_key else {}),
    )


def _webhook(value: str) -> tuple[str, str | None]:
    url, _, secret = value.partition("#")
    return url, secret or None


def _smtp_relay(value: str) -> str:
    """`--smtp`'s value, checked before anything starts."""
    from webstore.mail.smtp import parse_relay

    try:
        parse_relay(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return value


if __name__ == "__main__":
    sys.exit(main())
