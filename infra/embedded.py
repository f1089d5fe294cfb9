"""The local stack's embedded DynamoDB (moto, in process) and what it needs to behave like DynamoDB.

No imports of the service here: tests use it before their environment is set.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any


@contextlib.contextmanager
def embedded_dynamodb() -> Iterator[None]:
    """moto's DynamoDB, EventBridge and SQS, in this process, for as long as the block runs."""
    from moto import mock_aws

    for name, value in (("AWS_ACCESS_KEY_ID", "local"), ("AWS_SECRET_ACCESS_KEY", "local")):
        os.environ.setdefault(name, value)
    with mock_aws():
        yield


def one_call_at_a_time(client: Any, lock: Any = None) -> Callable[[str, dict[str, Any]], Any]:
    """A `_make_api_call` for `client` that runs its calls one at a time.

    moto is not thread-safe inside a call: a transaction deep-copies the table while another
    thread (a request, the webhook delivery thread, a parallel read) may be writing to it, and
    fails with "dictionary changed size during iteration". DynamoDB makes every call atomic;
    serialising the embedded table's calls restores that, while threads still interleave
    between calls as concurrent Lambda instances do. Pass a reentrant `lock` to hold it across
    several calls (the local stack's state snapshots); share it with the embedded table's
    HTTP endpoint (infra.embedded_endpoint), whose calls come from other processes."""
    original = client._make_api_call
    lock = lock or threading.Lock()

    def atomic(operation: str, params: dict[str, Any]) -> Any:
        with lock:
            return original(operation, params)

    return atomic
