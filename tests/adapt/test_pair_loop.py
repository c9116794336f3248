"""The one event loop that pairs adapted side by side share: coroutines from many threads run
on it, a cancel stops those in flight after their cleanup, and nothing starts after it."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor

from adapt._pair_loop import PairLoop, run


def test_coroutines_from_many_threads_run_on_one_loop_in_its_own_thread() -> None:
    seen: list[tuple[int, str]] = []

    async def where(i: int) -> int:
        await asyncio.sleep(0)
        seen.append((id(asyncio.get_running_loop()), threading.current_thread().name))
        return i * i

    def pair(loop: PairLoop, i: int) -> int:
        with loop.bound():
            return run(where(i)) + run(where(i))

    with PairLoop() as loop, ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda i: pair(loop, i), range(8)))
    assert results == [2 * i * i for i in range(8)]
    assert len(seen) == 16 and len(set(seen)) == 1 and seen[0][1] == "vwt-adapt-loop"


def test_unbound_run_is_asyncio_run() -> None:
    async def loop_id() -> int:
        return id(asyncio.get_running_loop())

    with PairLoop() as loop:
        with loop.bound():
            bound = run(loop_id())
        assert run(loop_id()) != bound


def test_cancel_stops_what_is_in_flight_after_its_cleanup_and_refuses_what_comes_later() -> None:
    started, cleaned = threading.Event(), threading.Event()
    outcome: list[BaseException] = []

    async def hangs() -> None:
        started.set()
        try:
            await asyncio.Event().wait()  # never set: only a cancel ends it
        finally:
            await asyncio.sleep(0.05)  # cleanup that awaits, like closing a sandbox
            cleaned.set()

    def pair(loop: PairLoop) -> None:
        with loop.bound():
            try:
                run(hangs())
            except BaseException as e:
                outcome.append(e)
            try:
                run(asyncio.sleep(0))
            except BaseException as e:
                outcome.append(e)

    loop = PairLoop()
    thread = threading.Thread(target=pair, args=(loop,))
    thread.start()
    assert started.wait(30)
    loop.cancel()
    thread.join(30)
    loop.close()  # waits for the cancelled coroutine's cleanup
    assert cleaned.is_set() and not thread.is_alive()
    # CancelledError is not an Exception: a procedure's `except Exception` does not swallow it
    assert [type(e) for e in outcome] == [asyncio.CancelledError, asyncio.CancelledError]


def test_close_ends_the_loops_own_tasks_and_its_thread() -> None:
    loop = PairLoop()

    async def leave_a_task() -> None:
        asyncio.get_running_loop().create_task(asyncio.Event().wait())  # like a logging worker

    with loop.bound():
        run(leave_a_task())
    before = threading.active_count()
    loop.close()
    loop.close()  # a second close does nothing
    assert threading.active_count() == before - 1
