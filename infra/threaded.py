"""The local server's requests, each on a worker thread, so a slow one does not stall the rest.

The endpoints are `async def` (right for Lambda: one request per instance, no thread-pool hop)
but call boto3, which blocks. Run on one event loop, as `webstore serve` did, every request
waited for the one before it (both interfaces: one process, one loop). `ThreadedApp` runs each
HTTP request's whole ASGI app on a pool thread with an event loop of its own; `receive` and
`send` hop back to the server's loop. Only moto's own work on a DynamoDB call is serial (the
embedded table's critical section, `infra.embedded.EmbeddedStore`), as DynamoDB makes each
call atomic; parsing, pricing, rendering and botocore's serialising run on the threads, which
interleave between calls as concurrent Lambda instances do. Local stack only: Lambda never
uses this.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

T = TypeVar("T")
WORKERS = 32


class ThreadedApp:
    def __init__(self, app: ASGIApp, *, workers: int = WORKERS) -> None:
        self.app = app
        self.pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="request")
        self._loops = threading.local()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # lifespan and the like stay on the server's loop
            await self.app(scope, receive, send)
            return
        server_loop = asyncio.get_running_loop()

        def on_server_loop(call: Callable[[], Awaitable[T]]) -> Callable[[], Awaitable[T]]:
            async def hop() -> T:
                future = asyncio.run_coroutine_threadsafe(_run(call), server_loop)
                return await asyncio.wrap_future(future)

            return hop

        async def thread_receive() -> Message:
            return await on_server_loop(receive)()

        async def thread_send(message: Message) -> None:
            await on_server_loop(lambda: send(message))()

        await server_loop.run_in_executor(self.pool, self._serve, scope, thread_receive, thread_send)

    def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        """On a pool thread: run the app on this thread's own (reused) event loop."""
        loop: asyncio.AbstractEventLoop | None = getattr(self._loops, "loop", None)
        if loop is None:
            loop = asyncio.new_event_loop()
            self._loops.loop = loop
        asyncio.set_event_loop(loop)
        loop.run_until_complete(self.app(scope, receive, send))

    def close(self) -> None:
        self.pool.shutdown(wait=False, cancel_futures=True)


async def _run(call: Callable[[], Awaitable[Any]]) -> Any:
    return await call()
