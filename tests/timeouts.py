"""A time limit for tests of code whose bug class is hanging (FIFOs, locks, concurrent processes)."""

from __future__ import annotations

import signal
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def deadline(seconds: int = 30, what: str = "the code under test") -> Iterator[None]:
    """Turn a hang into a failure (``TimeoutError: <what> hung``) instead of a stuck suite (SIGALRM, main thread)."""
    def boom(*_: object) -> None:
        raise TimeoutError(f"{what} hung")
    old = signal.signal(signal.SIGALRM, boom)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
