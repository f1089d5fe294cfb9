"""The local stack's state directory: what `webstore serve` keeps across restarts.

The embedded DynamoDB lives in the process, so its table is snapshotted to `table.json` in the
state directory (default `.webstore/` under the directory `serve` runs in; git-ignored): at
start it is loaded back, after writes it is saved at most every SNAPSHOT_SECONDS, and once more
on a clean stop (Ctrl-C). A crash (kill -9, power loss) loses at most the last SNAPSHOT_SECONDS
of writes. Beside it: `credentials.json` (the keys last printed: only their hashes are in the
table, so a restart prints them from here) and `webhook.key` (the key sealing webhook signing
secrets in the table). `--fresh` deletes the directory's files first.

Not kept: messages in flight on the embedded SQS queue (webhook deliveries waiting for a retry).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import secrets
import shutil
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from webstore.db import Table

DEFAULT_STATE_DIR = Path(".webstore")
SNAPSHOT_SECONDS = 1.0
TABLE_FILE = "table.json"
CREDENTIALS_FILE = "credentials.json"
WEBHOOK_KEY_FILE = "webhook.key"
BYTES = "__bytes__"
WRITES = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})


def write_private(path: Path, text: str) -> None:
    """Write atomically (a temporary file renamed over) a file only its owner can read."""
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "w") as file:
        file.write(text)
    os.replace(temporary, path)


@dataclass
class LocalState:
    directory: Path
    restored_items: int = 0
    _dirty: threading.Event = field(default_factory=threading.Event)

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

    def note_write(self) -> None:
        """A write reached the table another way (a tool, through the embedded endpoint)."""
        self._dirty.set()

    def restore(self, table: Table) -> int:
        """Put the snapshot's items back into the (new, empty) table; how many there were."""
        path = self.directory / TABLE_FILE
        if not path.exists():
            return 0
        items = [_decode(item) for item in json.loads(path.read_text())["items"]]
        for start in range(0, len(items), 25):
            request = {table.name: [{"PutRequest": {"Item": i}} for i in items[start : start + 25]]}
            while request:
                request = table.client.batch_write_item(RequestItems=request).get("UnprocessedItems") or {}
        self.restored_items = len(items)
        return len(items)

    def snapshot(self, table: Table, lock: Any) -> None:
        """The whole table, read under `lock` (no write lands between two scan pages)."""
        items: list[dict[str, Any]] = []
        with lock:
            self._dirty.clear()
            start: dict[str, Any] | None = None
            while True:
                page = table.client.scan(
                    TableName=table.name, **({"ExclusiveStartKey": start} if start else {})
                )
                items.extend(page["Items"])
                start = page.get("LastEvaluatedKey")
                if not start:
                    break
        document = {"table": table.name, "items": [_encode(i) for i in items]}
        write_private(self.directory / TABLE_FILE, json.dumps(document, separators=(",", ":")))

    @contextlib.contextmanager
    def kept(self, table: Table, lock: Any) -> Iterator[None]:
        """While the block runs, snapshot the table within SNAPSHOT_SECONDS of a write; once more
        at the end. The client's calls must go through `lock` (infra.embedded.one_call_at_a_time)."""
        original = table.client._make_api_call
        dirty = self._dirty

        def noting_writes(operation: str, params: dict[str, Any]) -> Any:
            result = original(operation, params)
            if operation in WRITES:
                dirty.set()
            return result

        table.client._make_api_call = noting_writes
        dirty.set()  # the start's own writes (restore, import) went through another client
        stop = threading.Event()

        def snapshots() -> None:
            while not stop.wait(SNAPSHOT_SECONDS):
                if dirty.is_set():
                    self.snapshot(table, lock)

        thread = threading.Thread(target=snapshots, name="state-snapshots", daemon=True)
        thread.start()
        try:
            yield
        finally:
            stop.set()
            thread.join()
            self.snapshot(table, lock)


def _encode(value: Any) -> Any:
    """DynamoDB JSON as JSON: binary values base64 (`{"B": b"…"}` as `{"B": {"__bytes__": "…"}}`)."""
    if isinstance(value, bytes | bytearray):
        return {BYTES: base64.b64encode(value).decode()}
    if isinstance(value, dict):
        return {k: _encode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    return value


def _decode(value: Any) -> Any:
    if isinstance(value, dict):
        if set(value) == {BYTES}:
            return base64.b64decode(value[BYTES])
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value
