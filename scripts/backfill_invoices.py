"""Give the payments recorded before invoices existed their invoice numbers (webstore.invoices.
backfill, docs/tax.md): once per deployed table after upgrading, per account; safe to run again.

    AWS_PROFILE=… .venv/bin/python scripts/backfill_invoices.py --table NAME --account 1 [--account 2 …]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "shared")]

from webstore.invoices.backfill import number_older_payments  # noqa: E402
from webstore.services import build_services  # noqa: E402
from webstore.settings import Settings  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--table", required=True)
    parser.add_argument("--account", type=int, action="append", required=True)
    parser.add_argument("--region", default=None)
    args = parser.parse_args(argv)
    services = build_services(
        Settings(table_name=args.table, **({"region": args.region} if args.region else {}))
    )
    for account_id in args.account:
        print(
            f"account {account_id}: {number_older_payments(services, account_id)} payments given an invoice"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
