"""Give the payments recorded before "Find my subscriptions" existed their e-mail pointers
(webstore.repo.email_lookup), so the form finds them: once per deployed table after upgrading,
per account. Running it again changes nothing.

    AWS_PROFILE=… .venv/bin/python scripts/backfill_email_pointers.py --table NAME --account 1 [--account 2 …]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared")]

import boto3  # noqa: E402

from webstore.db import Table  # noqa: E402
from webstore.repo.email_lookup import backfill_pointers  # noqa: E402


def main(argv: list[str] | None = None, table: Table | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--account", type=int, action="append", required=True)
    parser.add_argument("--region", default=None)
    args = parser.parse_args(argv)
    table = table or Table(boto3.client("dynamodb", region_name=args.region), args.table)
    for account_id in args.account:
        done = backfill_pointers(table, account_id)
        print(f"account {account_id}: {done} payments given their e-mail pointer")
    return 0


if __name__ == "__main__":
    sys.exit(main())
