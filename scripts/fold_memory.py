"""What a journal fold (infra/state.py) leaves in the process: RSS before and after each of
`--folds` folds of a 16 MB journal segment into a growing snapshot, in a thread as `serve` does.

    python scripts/fold_memory.py             # figures in docs/testing.md
    python scripts/fold_memory.py --folds 6

The items are payment-sized records; each segment writes new ones, so the snapshot grows by
what the segment adds (as a store's does) and RSS after a fold should follow it, not step up
by the fold's own peak.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "shared")]

from infra.state import TABLE_FILE, LocalState, _segment_name  # noqa: E402

SEGMENT_BYTES = 16_000_000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS"):
            return int(line.split()[1]) / 1024
    return 0.0


def item(n: int) -> dict[str, Any]:
    return {
        "PK": {"S": "ACCOUNT#1"},
        "SK": {"S": f"PAYMENT#{n:08d}"},
        "note": {"S": "x" * (200 + n % 600)},
        "amount": {"N": str(n)},
        "lines": {"L": [{"M": {"package": {"N": "1"}, "name": {"S": "Diamond Sword"}}}] * 3},
    }


def write_segment(directory: Path, segment: int, first: int) -> int:
    """A journal segment of new items from `first`; the next free number."""
    n = first
    with (directory / _segment_name(segment)).open("w") as out:
        written = 0
        while written < SEGMENT_BYTES:
            records = [
                {"t": "t", "k": {k: item(n + j)[k] for k in ("PK", "SK")}, "i": item(n + j)} for j in range(6)
            ]
            line = json.dumps({"w": records}, separators=(",", ":")) + "\n"
            out.write(line)
            written += len(line)
            n += 6
    return n


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--folds", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        directory = Path(folder)
        snapshot = {
            "format": 2,
            "journal": 0,
            "tables": {"t": {"key": ["PK", "SK"], "items": [item(n) for n in range(7000)]}},
        }
        (directory / TABLE_FILE).write_text(json.dumps(snapshot, separators=(",", ":")))
        del snapshot
        state = LocalState(directory)
        n = 7000
        gc.collect()
        print(f"start: RSS {rss_mb():.1f} MB")
        for segment in range(args.folds):
            n = write_segment(directory, segment, n)
            gc.collect()
            before = rss_mb()
            fold = threading.Thread(target=state._fold, args=(segment + 1,))
            fold.start()
            fold.join()
            gc.collect()
            size = (directory / TABLE_FILE).stat().st_size / 1e6
            print(f"fold {segment + 1}: RSS {before:.1f} → {rss_mb():.1f} MB (snapshot {size:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
