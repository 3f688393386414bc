"""The pending-gradient warning of a snapshot (``tests/test_snapshot_pending_gradients.py``) in a
data-parallel run, on 2 ranks.

A collective save captures the replicated state on rank 0 only, so only rank 0 checked its
gradients: rank 1 was never warned, and where rank 0 held no gradient but rank 1 did (inside
``no_sync()`` each rank accumulates its own micro-batches) nobody was, though the resume loses rank
1's gradients.  (Found by a red team of the seams across ranks, saving between ``no_sync()``
micro-batches.)  Now every rank reports its own pending gradients with its fingerprint and every rank
warns, at the user's line, naming the ranks that lose some; rank 0's capture does not warn twice.
"""

from __future__ import annotations

import pytest
from test_distributed import launch, results

pytest.importorskip("mpi4py", reason='mpi4py is not installed: pip install ".[distributed]"')
pytestmark = pytest.mark.msgpack

NAMED = "2 parameters ('module.weight', 'module.bias') hold gradients accumulated since the optimizer's last step"


def test_every_rank_is_warned_of_every_ranks_pending_gradients(tmp_path):
    r = results(launch("pending_gradients", str(tmp_path)))
    for rank in (0, 1):
        said = r[rank]
        for what in ("no_sync", "no_sync_async", "synced"):
            assert len(said[what]) == 1, (rank, what, said[what])  # once: rank 0's capture does not repeat it
            message, filename = said[what][0]
            assert message.startswith(NAMED + " on ranks 0, 1,") and filename == "distributed_worker.py"
        assert said["stepped"] == []
        assert len(said["rank1_only"]) == 1 and said["rank1_only"][0][0].startswith(NAMED + " on rank 1,")
