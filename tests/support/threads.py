"""Concurrent "instances": a target run in several threads released together."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any


def in_threads(target: Callable[..., None], args_list: list[tuple[Any, ...]]) -> None:
    """Run `target` once per args tuple, all released together (each thread an "instance":
    Mangum needs an event loop of its own in every thread)."""
    barrier = threading.Barrier(len(args_list))
    errors: list[BaseException] = []

    def run(*args: Any) -> None:
        asyncio.set_event_loop(asyncio.new_event_loop())
        barrier.wait()
        try:
            target(*args)
        except BaseException as error:  # surfaced in the test thread below
            errors.append(error)

    threads = [threading.Thread(target=run, args=args) for args in args_list]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise errors[0]
