"""The most memory a call holds at once, by ``tracemalloc`` (which sees NumPy's array memory): what the
tests of in-place kernels measure -- a temporary of an input's size shows as that many bytes more."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from typing import Any


def peak_bytes(fn: Callable[[], Any]) -> int:
    """The peak of traced memory while ``fn()`` runs (tracing started for the call and stopped after)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
