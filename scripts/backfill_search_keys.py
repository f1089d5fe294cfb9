"""Give the payments and recurring payments stored before GSI2 existed the panel's search keys
(webstore.repo.search_keys): once per deployed table after upgrading, per account.

    AWS_PROFILE=… .venv/bin/python scripts/backfill_search_keys.py --table NAME --account 1 [--account 2 …]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared")]

import boto3  # noqa: E402

from webstore.db import Table  # noqa: E402
from webstore.repo.search_keys import SearchKeyBackfill  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--account", type=int, action="append", required=True)
    parser.add_argument("--region", default=None)
    args = parser.parse_args()
    table = Table(boto3.client("dynamodb", region_name=args.region), args.table)
    for account_id in args.account:
        payments, recurring = SearchKeyBackfill(table).run(account_id)
        print(f"account {account_id}: {payments} payments, {recurring} recurring payments given their keys")
    return 0


if __name__ == "__main__":
    sys.exit(main())
