"""One event loop for the adaptation pairs that run side by side in threads.

A pair's procedures are plain functions; their async parts (the sample's trials, a command in
its sandbox) go through ``run``. Pairs bound to a ``PairLoop`` run those parts on its one loop,
in a thread of its own: litellm's logging worker, the sandboxes and the MCP sessions all live
on a single loop, however many pairs are in flight. ``cancel`` stops every part in flight and
refuses new ones (Ctrl-C of `vwt adapt`); ``close`` lets the cancelled parts finish their
cleanup (their sandboxes closed) before the loop ends.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
from collections.abc import Coroutine, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from types import TracebackType
from typing import Any, TypeVar

T = TypeVar("T")

_CURRENT: ContextVar[PairLoop | None] = ContextVar("vwt_adapt_pair_loop", default=None)


class PairLoop:
    """An event loop in a thread of its own, shared by the pairs ``bound`` to it."""

    def __init__(self) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self._loop.run_forever, name="vwt-adapt-loop", daemon=True
        )
        self._lock = threading.Lock()
        self._futures: set[concurrent.futures.Future[Any]] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._cancelled = False
        self._thread.start()

    def __enter__(self) -> PairLoop:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @contextmanager
    def bound(self) -> Iterator[None]:
        """Within this block (in this thread), ``run`` runs its coroutines on this loop."""
        token = _CURRENT.set(self)
        try:
            yield
        finally:
            _CURRENT.reset(token)

    def run(self, coro: Coroutine[Any, Any, T]) -> T:
        """Run ``coro`` on the loop and wait for it (from a thread other than the loop's)."""
        with self._lock:
            if self._cancelled:
                coro.close()
                raise asyncio.CancelledError
            future = asyncio.run_coroutine_threadsafe(self._tracked(coro), self._loop)
            self._futures.add(future)
        try:
            return future.result()
        except concurrent.futures.CancelledError:
            raise asyncio.CancelledError from None  # not an Exception: no procedure catches it
        finally:
            with self._lock:
                self._futures.discard(future)

    async def _tracked(self, coro: Coroutine[Any, Any, T]) -> T:
        task = asyncio.current_task()
        if task is None:  # never: run_coroutine_threadsafe makes a task
            return await coro
        self._tasks.add(task)
        try:
            return await coro
        finally:
            self._tasks.discard(task)

    def cancel(self) -> None:
        """Cancel every coroutine in flight; later ``run`` calls raise CancelledError."""
        with self._lock:
            self._cancelled = True
            for future in self._futures:
                future.cancel()

    def close(self) -> None:
        """Wait for the coroutines in flight (cancelled ones finish their cleanup), end the
        loop's other tasks (litellm's logging worker), and stop the loop and its thread."""
        if self._loop.is_closed():
            return

        async def drain() -> None:
            if self._tasks:
                await asyncio.wait(set(self._tasks))
            others = asyncio.all_tasks() - {asyncio.current_task()}
            for task in others:
                task.cancel()
            await asyncio.gather(*others, return_exceptions=True)
            await self._loop.shutdown_asyncgens()
            await self._loop.shutdown_default_executor()

        try:
            asyncio.run_coroutine_threadsafe(drain(), self._loop).result()
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()


def run(coro: Coroutine[Any, Any, T]) -> T:
    """``coro`` run to its end: on the ``PairLoop`` this thread is bound to, or, unbound, by
    ``asyncio.run``."""
    loop = _CURRENT.get()
    return asyncio.run(coro) if loop is None else loop.run(coro)
