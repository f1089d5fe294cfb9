"""Garbage collection paused while a Lambda function initialises, resumed at its first invocation.

A cold start builds a large heap that lives as long as the instance: modules, classes, pydantic
and FastAPI schemas. While it grows, the collector keeps scanning it, and its full collections
cost more the larger the heap already is; ours is larger than the bare stack's, so a handler
paid ~50-70 ms of collections more than the FastAPI floor (scripts/bench_cold_start.py,
docs/deploy.md). Initialisation makes almost no cyclic garbage (under a thousand objects), so the
collector is paused while the handler module loads, and on the first invocation everything init
built is frozen (`gc.freeze`: moved out of the collector's view for good) and collection resumed:
later collections scan only what requests allocate. Only in Lambda (`AWS_LAMBDA_FUNCTION_NAME`
set): tests, tools and the local server import `functions` and keep the collector as it is.
"""

from __future__ import annotations

import gc
import os

_paused = False


def pause_collection_during_init() -> None:
    """Called as the `functions` package loads: before any of the handler's imports."""
    global _paused
    if os.environ.get("AWS_LAMBDA_FUNCTION_NAME") and gc.isenabled():
        gc.disable()
        _paused = True


def end_of_init() -> None:
    """At every invocation's start (one check after the first): freeze init's heap, resume."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()
