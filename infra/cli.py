"""The `webstore` command: run the local stack, or import a catalog into any table."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import boto3

from infra.state import DEFAULT_STATE_DIR
from webstore.catalog_file import CatalogError, load_catalog
from webstore.catalog_import import import_catalog, preview_import
from webstore.db import Table
from webstore.secret_box import NoKeyConfigured, secret_box
from webstore.settings import Settings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="webstore", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="run both interfaces locally with the demo store")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--storefront-port", type=int, default=8080)
    serve.add_argument("--operator-port", type=int, default=8081)
    serve.add_argument("--table", default="webstore", help="table name (created if missing)")
    serve.add_argument("--dynamodb-endpoint", help="a real DynamoDB endpoint instead of the embedded one")
    serve.add_argument("--region", default="us-east-1")
    serve.add_argument("--catalog", type=Path, help="catalog file to import instead of the demo store")
    serve.add_argument("--no-catalog", action="store_true", help="import nothing")
    serve.add_argument("--next-check", type=int, help="seconds between queue polls, for every server")
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
        "--webhook",
        action="append",
        default=[],
        metavar="URL[#SECRET]",
        help="send the store's webhooks to this receiver (repeatable); signing secret after '#'",
    )

    importer = commands.add_parser("import", help="import (or re-import) a catalog file into a table")
    importer.add_argument("catalog", type=Path)
    importer.add_argument("--table", required=True)
    importer.add_argument("--region", default=None)
    importer.add_argument("--dynamodb-endpoint", default=None)
    importer.add_argument(
        "--webhook-key-secret",
        default=None,
        metavar="ARN",
        help="Secrets Manager secret sealing webhook signing secrets (the stack's WebhookKeySecret output); "
        "needed when the catalog has webhooks",
    )

    importer.add_argument("--dry-run", action="store_true", help="print what would change; write nothing")

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
                table_name=args.table,
                dynamodb_endpoint=args.dynamodb_endpoint,
                region=args.region,
                catalog=None if args.no_catalog else (args.catalog or DEMO_CATALOG),
                next_check=args.next_check,
                credentials_file=args.credentials_file,
                state_dir=args.state_dir,
                fresh=args.fresh,
                cors_origins=args.cors_origins,
                webhooks=tuple(_webhook(value) for value in args.webhook),
                trusted_proxy=args.trusted_proxy,
            )
        )

    try:
        catalog = load_catalog(args.catalog)
    except CatalogError as error:
        for problem in error.problems:
            print(f"webstore import: {problem}", file=sys.stderr)
        return 2
    client = boto3.client("dynamodb", region_name=args.region, endpoint_url=args.dynamodb_endpoint)
    settings = Settings(
        **({"region": args.region} if args.region else {}),
        **({"webhook_key_secret": args.webhook_key_secret} if args.webhook_key_secret else {}),
    )
    try:
        if args.dry_run:
            changes = preview_import(Table(client, args.table), catalog, box=secret_box(settings))
            print(f"Would change store {catalog.store.id} in {args.table}: {changes.summary()} (dry run)")
            return 0
        result = import_catalog(Table(client, args.table), catalog, box=secret_box(settings))
    except NoKeyConfigured:
        print(
            "webstore import: the catalog has webhooks; pass --webhook-key-secret (the stack's "
            "WebhookKeySecret output) so their signing secrets can be sealed",
            file=sys.stderr,
        )
        return 2
    print(f"Imported store {result.account_id} into {args.table}: {result.changes.summary()}")
    print(f"  public_token       {result.public_token}")
    print(f"  checkout_api_key   {result.checkout_api_key or '(unchanged; only its hash is stored)'}")
    for server_id, secret in result.server_secrets.items():
        print(f"  server {server_id} secret    {secret or '(unchanged; only its hash is stored)'}")
    return 0


def _webhook(value: str) -> tuple[str, str | None]:
    url, _, secret = value.partition("#")
    return url, secret or None


if __name__ == "__main__":
    sys.exit(main())
