"""The C allocator's settings, which decide whether a step pays page faults.

glibc serves a large allocation (above a threshold that starts at 128 KiB and
rises as mapped chunks are freed) with a fresh mapping, and returns freed memory
at the top of the heap to the kernel; an array allocated again then comes from
new pages, which the kernel zeroes on first touch -- a minor page fault per 4 KiB.
Whether a step pays them depends on the engine's pattern of allocations and on
what the process ran before: in one process, the MNIST step of torch 2.13 took
about 5,200 faults and 62 ms a step where this engine's took none, and 46 ms
once freed memory was kept (``python benchmarks/run.py --only mnist --malloc
keep``).  A ratio between engines is only fair when both run under one setting.

:func:`keep_freed_memory` sets glibc to keep freed memory for reuse, as a
caching allocator (PyTorch's for CUDA, jemalloc's) does.
"""

from __future__ import annotations

import ctypes


def keep_freed_memory() -> bool:
    """glibc only: large arrays from the heap (not each its own mapping) and freed memory
    kept there for reuse, so allocating an array again touches no fresh pages.  False
    where that allocator is not there."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3  # malloc.h
        return bool(libc.mallopt(m_mmap_threshold, 32 * 2**20) and libc.mallopt(m_trim_threshold, 2**31 - 1))
    except (OSError, AttributeError):
        return False
