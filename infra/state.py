"""The local stack's state directory: what `webstore serve` keeps across restarts.

The embedded DynamoDB lives in the process; its items are kept in the state directory (default
`.webstore/` under the directory `serve` runs in; git-ignored) as a snapshot, `table.json`, and a
journal, `journal-<n>.jsonl`. Every call that writes appends the after-images of the items it
touched to the journal and fsyncs it before the call returns (infra.embedded.EmbeddedStore), so a
request is answered only once its change is on disk: a crash (kill -9, power loss) loses nothing
that was acknowledged. At start the snapshot is loaded, the journal replayed over it (a last line
torn by a crash is a write that was never acknowledged, and is dropped), and the result written
as the new snapshot; while serving, a journal segment that passes JOURNAL_SEGMENT_BYTES is closed
and folded into the snapshot by a background thread, from the files (the table is not held); a
clean stop (Ctrl-C) folds the rest. Beside them: `credentials.json` (the keys last printed: only
their hashes are in the table, so a restart prints them from here) and `webhook.key` (the key
sealing webhook signing secrets in the table). `--fresh` deletes the directory's files first.

Not kept: messages in flight on the embedded SQS queue (webhook deliveries waiting for a retry).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import secrets
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from infra.embedded import EmbeddedStore, load_items
from webstore.db import Table

DEFAULT_STATE_DIR = Path(".webstore")
JOURNAL_SEGMENT_BYTES = 16 * 1024 * 1024
TABLE_FILE = "table.json"
CREDENTIALS_FILE = "credentials.json"
WEBHOOK_KEY_FILE = "webhook.key"
BYTES = "__bytes__"


def write_private(path: Path, text: str, *, sync: bool = False) -> None:
    """Write atomically (a temporary file renamed over) a file only its owner can read; with
    `sync`, on disk (file and directory fsynced) when this returns."""
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(text)
        if sync:
            file.flush()
            os.fsync(file.fileno())
    os.replace(temporary, path)
    if sync:
        _sync_directory(path.parent)


@dataclass
class LocalState:
    directory: Path
    restored_items: int = 0
    _segment: int = 0  # the journal segment writes go to
    _folding: threading.Lock = field(default_factory=threading.Lock)
    _folder: threading.Thread | None = None

    @classmethod
    def open(cls, directory: Path, *, fresh: bool = False) -> LocalState:
        if fresh and directory.exists():
            shutil.rmtree(directory)
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, 0o700)
        return cls(directory)

    # --- keys ---

    def webhook_key(self) -> str:
        """The key sealing webhook secrets: made once, then the same on every start."""
        path = self.directory / WEBHOOK_KEY_FILE
        if not path.exists():
            write_private(path, secrets.token_urlsafe(32))
        return path.read_text().strip()

    def previous_credentials(self) -> dict[str, Any]:
        """What the last start saved (`credentials.json`), or nothing."""
        path = self.directory / CREDENTIALS_FILE
        return dict(json.loads(path.read_text())) if path.exists() else {}

    def remembered_credentials(self, creds: dict[str, Any]) -> dict[str, Any]:
        """`creds` with the keys an import kept (None: only their hashes are stored) filled in
        from the last start; saved for the next one."""
        path = self.directory / CREDENTIALS_FILE
        previous: dict[str, Any] = json.loads(path.read_text()) if path.exists() else {}
        merged = dict(creds)
        if merged.get("checkout_api_key") is None:
            merged["checkout_api_key"] = previous.get("checkout_api_key")
        known = {s["id"]: s.get("secret") for s in previous.get("servers", [])}
        merged["servers"] = [
            {**s, "secret": s["secret"] if s["secret"] is not None else known.get(s["id"])}
            for s in creds.get("servers", [])
        ]
        if merged["servers"]:
            merged["server_secret"] = merged["servers"][0]["secret"]
        write_private(path, json.dumps(merged, indent=2) + "\n")
        return merged

    # --- the embedded table ---

    def restore(self, store: EmbeddedStore, table: Table) -> int:
        """Load the snapshot and replay the journal into the (new, empty) embedded `table`, write
        the result as the new snapshot and start the journal after it; how many items there were.
        Before anything else uses the table."""
        with store.lock, self._folding:
            snapshot = self._read_snapshot()
            segments = self._segments()
            for segment in segments:
                _replay(snapshot, self.directory / _segment_name(segment))
            self._segment = max([snapshot.journal - 1, *segments]) + 1
            tables = snapshot.tables
            loaded = load_items(table.client, table.name, tables.get(table.name, {}).values())
            self._write_snapshot(_Snapshot(self._segment, tables, snapshot.keys))
            for segment in segments:
                (self.directory / _segment_name(segment)).unlink()
        self.restored_items = loaded
        return loaded

    @contextlib.contextmanager
    def kept(self, store: EmbeddedStore) -> Iterator[None]:
        """While the block runs, every write through `store` is journaled (appended and fsynced
        before its call returns); full segments are folded into the snapshot in the background,
        the rest at the end. Enter after `restore`."""
        journal = _Journal(self.directory, self._segment, self._fold_in_background)
        store.journal = journal.append
        try:
            yield
        finally:
            store.close()
            journal.close()
            if self._folder is not None:
                self._folder.join()
            self._fold(journal.segment + 1)

    def _fold_in_background(self, upto: int) -> None:
        if self._folder is not None and self._folder.is_alive():
            return  # the next full segment folds this one too
        self._folder = threading.Thread(target=self._fold, args=(upto,), name="state-fold", daemon=True)
        self._folder.start()

    def _fold(self, upto: int) -> None:
        """The snapshot with every closed segment below `upto` replayed over it; then those
        segments go. From the files only: the table is not held."""
        with self._folding:
            snapshot = self._read_snapshot()
            folded = [s for s in self._segments() if s < upto]
            for segment in folded:
                _replay(snapshot, self.directory / _segment_name(segment))
            if not folded:
                return
            self._write_snapshot(_Snapshot(max(folded) + 1, snapshot.tables, snapshot.keys))
            for segment in folded:
                (self.directory / _segment_name(segment)).unlink()
        del snapshot
        _give_back_freed_memory()

    def _segments(self) -> list[int]:
        return sorted(int(p.name[8:-6]) for p in self.directory.glob("journal-*.jsonl"))

    def _read_snapshot(self) -> _Snapshot:
        path = self.directory / TABLE_FILE
        if not path.exists():
            return _Snapshot(0, {}, {})
        document = json.loads(path.read_text())
        if "format" not in document:  # the first format: one table, binary values as {"__bytes__"}
            items = [_wire(item) for item in document["items"]]
            names = sorted(KEY_ATTRIBUTES)
            by_key = {_canonical({a: i[a] for a in names}): i for i in items}
            return _Snapshot(0, {document["table"]: by_key}, {document["table"]: names})
        tables: dict[str, dict[str, Any]] = {}
        keys: dict[str, list[str]] = {}
        for name, kept in document["tables"].items():
            keys[name] = kept["key"]
            tables[name] = {_canonical({a: i[a] for a in kept["key"]}): i for i in kept["items"]}
        return _Snapshot(int(document["journal"]), tables, keys)

    def _write_snapshot(self, snapshot: _Snapshot) -> None:
        document = {
            "format": 2,
            "journal": snapshot.journal,
            "tables": {
                name: {"key": snapshot.keys[name], "items": list(items.values())}
                for name, items in snapshot.tables.items()
            },
        }
        write_private(self.directory / TABLE_FILE, json.dumps(document, separators=(",", ":")), sync=True)


KEY_ATTRIBUTES = ("PK", "SK")


def _give_back_freed_memory() -> None:
    """Return the fold's freed peak to the system (glibc's `malloc_trim`). A fold parses the
    snapshot and a 16 MB segment into Python objects, tens of MB that are freed when it ends but
    stay in the fold thread's malloc arena: without the trim the serve process kept a 40 MB step
    after its first fold (reused by later folds, never growing further); with it RSS goes back
    to where it was. Elsewhere than glibc, nothing to do."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)


@dataclass
class _Snapshot:
    journal: int  # the first journal segment not in it
    tables: dict[str, dict[str, Any]]  # table → canonical key → item (DynamoDB JSON)
    keys: dict[str, list[str]]  # table → its key attributes' names, sorted


def _canonical(key: dict[str, Any]) -> str:
    return json.dumps(key, sort_keys=True, separators=(",", ":"))


def _segment_name(segment: int) -> str:
    return f"journal-{segment}.jsonl"


def _replay(snapshot: _Snapshot, path: Path) -> None:
    """Apply one journal segment's lines in order. A line that does not parse can only be the
    last one, torn by a crash while it was written: its call never returned, nothing was
    acknowledged, and it is dropped (with whatever might follow it)."""
    lines = path.read_bytes().split(b"\n")
    for number, line in enumerate(lines, start=1):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if any(lines[number:]):
                raise ValueError(f"{path}: line {number} is damaged and is not the last one") from None
            break
        for record in entry["w"]:
            snapshot.keys.setdefault(record["t"], sorted(record["k"]))
            items = snapshot.tables.setdefault(record["t"], {})
            key = _canonical(record["k"])
            if record["i"] is None:
                items.pop(key, None)
            else:
                items[key] = record["i"]


class _Journal:
    """The open journal segment: each append is one line, flushed and fsynced before it returns.
    A segment past JOURNAL_SEGMENT_BYTES is closed, the next opened, and `on_full(next)` called."""

    def __init__(self, directory: Path, segment: int, on_full: Any) -> None:
        self.directory = directory
        self.segment = segment
        self.on_full = on_full
        self._open()

    def _open(self) -> None:
        path = self.directory / _segment_name(self.segment)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        self.file = os.fdopen(fd, "ab")
        self.size = self.file.tell()
        _sync_directory(self.directory)  # the new segment's name is on disk too

    def append(self, records: list[dict[str, Any]]) -> None:
        line = json.dumps({"w": records}, separators=(",", ":")).encode() + b"\n"
        self.file.write(line)
        self.file.flush()
        os.fsync(self.file.fileno())
        self.size += len(line)
        if self.size >= JOURNAL_SEGMENT_BYTES:
            self.file.close()
            self.segment += 1
            self._open()
            self.on_full(self.segment)

    def close(self) -> None:
        if not self.file.closed:
            self.file.flush()
            os.fsync(self.file.fileno())
            self.file.close()


def _sync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _wire(value: Any) -> Any:
    """The first snapshot format's values as DynamoDB JSON (binary: base64 text)."""
    if isinstance(value, dict):
        if set(value) == {BYTES}:
            return value[BYTES]
        return {k: _wire(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_wire(v) for v in value]
    return value
