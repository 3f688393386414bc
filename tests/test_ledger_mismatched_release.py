"""A release the ledger's holds do not pair with is said aloud, not absorbed.

The engine holds and releases each buffer by category ("saved", "host", "grad"); a release of a
category that holds none of the buffer is a bookkeeping slip.  The ledger used to take it from the
category the buffer counts under without a word, which keeps the live total right but may leave a
per-category count off.  (A full run of the suite never takes that branch; these tests make it.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from minigrad_ckpt import memory


@pytest.fixture
def fresh_warning_state(monkeypatch):
    monkeypatch.setattr(memory, "_mismatch_warned", [False])


def test_a_release_of_a_category_that_holds_nothing_warns_once(fresh_warning_state):
    ledger = memory.Ledger()
    a, b = np.zeros(10), np.zeros(20)
    ledger.hold([a, b], "saved")
    with pytest.warns(RuntimeWarning, match="'grad' holder released a 80-byte buffer"):
        ledger.release([a], category="grad")
    assert ledger.live("saved") == 160  # taken from the category it counts under: the total is right
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger.release([b], category="grad")  # once a process
    assert ledger.live("saved") == 0


def test_paired_holds_and_releases_say_nothing(fresh_warning_state):
    ledger = memory.Ledger()
    a = np.zeros(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ledger.hold([a], "saved")
        ledger.hold([a], "grad")
        ledger.release([a], category="grad")
        ledger.release([a], category="saved")
    assert ledger.live("saved") == ledger.live("grad") == 0
