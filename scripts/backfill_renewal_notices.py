"""Give the subscriptions started before "your subscription renews on …" existed their notice
items (webstore.subscriptions.notices), so they get the notice too: once per deployed table
after upgrading, per account. Running it again adds nothing.

    AWS_PROFILE=… .venv/bin/python scripts/backfill_renewal_notices.py --table NAME --account 1
"""

from __future__ import annotations

import argparse
import sys
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared")]

import boto3  # noqa: E402

from webstore.db import Table  # noqa: E402
from webstore.subscriptions.notices import backfill_notices  # noqa: E402


def main(argv: list[str] | None = None, table: Table | None = None, now: datetime | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--account", type=int, action="append", required=True)
    parser.add_argument("--region", default=None)
    args = parser.parse_args(argv)
    table = table or Table(boto3.client("dynamodb", region_name=args.region), args.table)
    for account_id in args.account:
        added = backfill_notices(table, account_id, now or datetime.now(UTC))
        print(f"account {account_id}: {added} subscriptions given their renewal-notice item")
    return 0


if __name__ == "__main__":
    sys.exit(main())
