"""``mg.set_num_interop_threads`` / ``mg.get_num_interop_threads``, PyTorch's pair that scripts set at the
top beside ``set_num_threads`` (``torch.set_num_interop_threads(1)``): an AttributeError.  torch 2.13: the
getter answers the CPU count to start, the setter refuses 0 with RuntimeError "set_num_interop_threads
expects a positive integer"; here the count is kept and read back (one op runs at a time either way)."""

from __future__ import annotations

import os

import pytest

import minigrad_ckpt as mg
from minigrad_ckpt import settings


def test_the_interop_thread_count_reads_back(monkeypatch):
    monkeypatch.setitem(settings._state, "num_interop_threads", None)
    assert mg.get_num_interop_threads() == (os.cpu_count() or 1)
    mg.set_num_interop_threads(2)
    assert mg.get_num_interop_threads() == 2
    with pytest.raises(RuntimeError, match="expects a positive integer"):
        mg.set_num_interop_threads(0)
