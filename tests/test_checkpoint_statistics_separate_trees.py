"""A buffer two separate checkpoints keep counts once in the statistics, as in the ledger.

``checkpoint(layer, h)`` for each of Linear, a layer returning ``x.t().t()`` (a view: its result
is its input's memory) and AlphaDropout: the second and third each keep that same buffer.  The
ledger holds it once -- checkpointing cost 288 bytes at the end of the forward pass -- but each
tree counted it as kept, and ``memory_saved_bytes`` read -576 (found by a red team's random
programs comparing the statistics with the ledger).
"""

from __future__ import annotations

import warnings

import minigrad_ckpt as mg
from minigrad_ckpt import checkpoint as ck
from minigrad_ckpt import nn


class DoubleTranspose(nn.Module):
    def forward(self, x):
        return x.t().t()


def forward_end(layers, x, each):
    """``(what the ledger holds when the forward pass ends, memory_saved_bytes then)``."""
    ck.reset_statistics()
    mg.manual_seed(3)
    with warnings.catch_warnings(), mg.memory.track() as ledger:
        warnings.simplefilter("ignore", ck.CheckpointCostWarning)
        y = x
        for layer in layers:
            y = ck.checkpoint(layer, y) if each else layer(y)
        held, saved = ledger.live("saved"), ck.statistics().memory_saved_bytes
        y.sum().backward()
    return held, saved


def test_a_buffer_kept_by_two_separate_checkpoints_counts_once():
    mg.manual_seed(0)
    for last in (nn.AlphaDropout(0.3), nn.Tanh()):
        layers = [nn.Linear(6, 6), DoubleTranspose(), last]
        x = mg.randn(12, 6)
        plain, _ = forward_end(layers, x, each=False)
        held, saved = forward_end(layers, x, each=True)
        assert saved == plain - held, (type(last).__name__, saved, plain - held)
    assert plain - held == 0  # the tanh's output, which a plain run keeps, against the buffer kept once
