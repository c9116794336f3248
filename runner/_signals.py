"""SIGTERM taken as Ctrl-C while a long step runs, so it ends the same way: what finished
is kept, one line says how to resume."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[Callable[[], None]]:
    """SIGTERM stops a run as Ctrl-C does (what finished stored, one line saying how to
    resume) while this is active; yields the function that (re)claims the signal from
    handlers installed meanwhile. Only the main thread can take signals; elsewhere nothing
    changes."""
    if threading.current_thread() is not threading.main_thread():
        yield lambda: None
        return

    def interrupt(signum: int, frame: object) -> None:
        raise KeyboardInterrupt

    def claim() -> None:
        signal.signal(signal.SIGTERM, interrupt)

    previous = signal.getsignal(signal.SIGTERM)
    claim()
    try:
        yield claim
    finally:
        # A handler installed from C (None here) cannot be put back: the default then.
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)
