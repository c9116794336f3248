"""Where batches run: Ray generator tasks, or a pool of local processes for small runs.

Both hand the driver the same three events per batch: groups of finished trials as they end,
then the end of the batch, or the error that stopped it (after the trials it finished).
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import signal
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from runner._worker import BatchFailed, Item

Worker = Callable[[str, str, int, int], Iterator[list[Item]]]
"""A streaming batch worker: (batch JSON, sandbox kind, concurrency, processes sharing the
model-call limits) -> groups of rows."""


class Streams(Protocol):
    """Batches in flight on some executor."""

    def submit(self, batch_json: str, kind: str, concurrency: int) -> Any:
        """Start a batch; returns its handle."""
        ...

    def wait(self, handles: list[Any], timeout: float) -> Any | None:
        """A handle with something to take, or None after ``timeout`` seconds."""
        ...

    def take(self, handle: Any) -> list[Item] | None:
        """The next group of the batch's finished trials; None when it ended; raises the error
        that stopped it."""
        ...

    def close(self, *, cancel: bool) -> None:
        """Release the executor; ``cancel`` stops the batches still running."""
        ...


class RayStreams:
    """Batches as Ray generator tasks (one CPU each) on the runtime this process joined."""

    def __init__(self, worker: Worker) -> None:
        import ray

        # max_retries=0: a crashed batch's missing trials are re-submitted by the driver, not
        # re-run whole by Ray (its finished trials are already stored).
        self._remote: Any = ray.remote(num_cpus=1, max_retries=0)(worker)
        self._running: list[Any] = []
        # one batch per CPU runs at a time: that many worker processes share the limits
        self._share = max(1, int(ray.cluster_resources().get("CPU", 1)))

    def submit(self, batch_json: str, kind: str, concurrency: int) -> Any:
        handle = self._remote.remote(batch_json, kind, concurrency, self._share)
        self._running.append(handle)
        return handle

    def wait(self, handles: list[Any], timeout: float) -> Any | None:
        import ray

        ready, _ = ray.wait(handles, num_returns=1, timeout=timeout)
        return ready[0] if ready else None

    def take(self, handle: Any) -> list[Item] | None:
        import ray

        try:
            rows: list[Item] = ray.get(next(handle))
        except StopIteration:
            self._running.remove(handle)
            return None
        except Exception:
            self._running.remove(handle)
            raise
        return rows

    def close(self, *, cancel: bool) -> None:
        import ray

        if cancel:
            for handle in self._running:
                ray.cancel(handle, force=True)
        self._running.clear()


_STOP = None


def _serve(worker: Worker, tasks: Any, events: Any, share: int) -> None:
    """A pool process: run batches from ``tasks``, reporting to ``events`` as they go."""
    from runner import _worker

    # Ctrl-C reaches the whole process group: the driver decides, and stops this process
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _worker.forget_inherited_state()
    while (task := tasks.get()) is not _STOP:
        handle, batch_json, kind, concurrency = task
        events.put(("start", handle, os.getpid()))
        try:
            for rows in worker(batch_json, kind, concurrency, share):
                events.put(("rows", handle, rows))
        except Exception as e:
            events.put(("error", handle, f"{type(e).__name__}: {e}"))
        else:
            events.put(("end", handle, None))


class LocalStreams:
    """Batches on a pool of ``processes`` local processes forked from this one: no runtime to
    start, so a small run begins at once. A process that dies fails the batch it was running
    (its finished trials were already handed out) and is replaced."""

    def __init__(self, worker: Worker, processes: int) -> None:
        self._context = multiprocessing.get_context("fork")
        self._worker, self._size = worker, processes
        self._tasks: Any = self._context.Queue()
        self._events: Any = self._context.Queue()
        self._processes: list[Any] = []
        self._running: dict[int, int] = {}  # pid -> handle
        self._pending: dict[int, deque[tuple[str, Any]]] = {}
        self._next = 0

    def _spawn(self) -> None:
        process = self._context.Process(
            target=_serve, args=(self._worker, self._tasks, self._events, self._size), daemon=True
        )
        process.start()
        self._processes.append(process)

    def submit(self, batch_json: str, kind: str, concurrency: int) -> Any:
        while len(self._processes) < self._size:
            self._spawn()
        handle, self._next = self._next, self._next + 1
        self._pending[handle] = deque()
        self._tasks.put((handle, batch_json, kind, concurrency))
        return handle

    def _receive(self, timeout: float) -> None:
        try:
            event = self._events.get(timeout=timeout)
        except queue.Empty:
            self._reap()
            return
        while True:
            kind, handle, data = event
            if kind == "start":
                self._running[data] = handle
            elif handle in self._pending:  # not a batch already failed for its dead process
                self._pending[handle].append((kind, data))
            try:
                event = self._events.get_nowait()
            except queue.Empty:
                break
        self._reap()

    def _reap(self) -> None:
        """Fail the batch of every pool process that died, and replace the process."""
        for process in [p for p in self._processes if p.exitcode is not None]:
            self._processes.remove(process)
            handle = self._running.pop(process.pid, None)
            if handle is not None:
                message = f"the worker process died (exit code {process.exitcode})"
                self._pending[handle].append(("error", message))
            self._spawn()

    def wait(self, handles: list[Any], timeout: float) -> Any | None:
        for attempt in range(2):
            for handle in handles:
                if self._pending[handle]:
                    return handle
            if attempt == 0:
                self._receive(timeout)
        return None

    def take(self, handle: Any) -> list[Item] | None:
        kind, data = self._pending[handle].popleft()
        if kind == "rows":
            rows: list[Item] = data
            return rows
        del self._pending[handle]
        self._running = {pid: h for pid, h in self._running.items() if h != handle}
        if kind == "error":
            raise BatchFailed(data)
        return None

    def close(self, *, cancel: bool) -> None:
        for process in self._processes:
            if cancel:
                process.kill()
            else:
                self._tasks.put(_STOP)
        for process in self._processes:
            process.join(timeout=10)
            if process.exitcode is None:
                process.kill()
                process.join(timeout=10)
        self._processes.clear()
        # tasks no process will read must not hold this process at exit
        for channel in (self._tasks, self._events):
            channel.cancel_join_thread()
            channel.close()
