"""The tape explorer's work grows with the tape, not with its square.

Two parts of ``record_backward`` went over the whole tape once per item: each leaf's steps were
found by reading every step (leaves x steps: a tape of 4,000 leaves, each read once, took 10 s
where the pass took 0.3 s), and after each replay of a checkpointed segment every checkpointed
node was searched for the values it brought back (segments x nodes: 4,000 segments, 10 s).  Now
the steps are read once for all the leaves, and a replay looks in its own segment tree.  The work
is counted here, not timed: reads of the steps' records, and the nodes searched after replays."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad_ckpt as mg
from minigrad_ckpt.checkpoint import checkpoint
from minigrad_ckpt.explorer import record


class _CountedReads(dict):
    reads = [0]

    def __getitem__(self, key):
        self.reads[0] += 1
        return super().__getitem__(key)


def test_leaf_records_read_each_step_a_bounded_number_of_times(monkeypatch):
    real = record._step_record
    monkeypatch.setattr(record, "_step_record", lambda *a: _CountedReads(real(*a)))
    rng = np.random.default_rng(0)
    leaves = [mg.tensor(rng.standard_normal(2), requires_grad=True) for _ in range(300)]
    h = leaves[0]
    for p in leaves[1:]:
        h = h + p * 0.5
    _CountedReads.reads[0] = 0
    data = record.record_backward(h.sum())
    assert _CountedReads.reads[0] <= 8 * len(data["steps"])  # was ~ leaves x steps (> 300 per step)
    # each leaf lists the steps that gave it a gradient, in order, each once
    for leaf in data["leaves"]:
        assert leaf["steps"] == sorted(set(leaf["steps"])) and leaf["steps"]
        given = [s["index"] for s in data["steps"] if any(a["leaf"] == leaf["id"] for a in s["accumulated"])]
        assert leaf["steps"] == given


@pytest.mark.filterwarnings("ignore::minigrad_ckpt.checkpoint.CheckpointCostWarning")
@pytest.mark.parametrize("nested", [False, True])
def test_a_replay_searches_its_own_segments_not_the_whole_tape(monkeypatch, nested):
    searched = [0]
    real = record.known_outputs

    def counting(nodes):
        searched[0] += len(nodes)
        return real(nodes)

    monkeypatch.setattr(record, "known_outputs", counting)
    w = mg.tensor(np.array([0.5, -0.25, 1.5]), requires_grad=True)

    def block(t):
        return mg.tanh(t * w) + t

    h = mg.tensor(np.array([1.0, 2.0, 3.0]))
    for _ in range(100):
        h = checkpoint(lambda t: checkpoint(block, block(t)), h) if nested else checkpoint(block, h)
    data = record.record_backward((h * h).sum())
    n = len(data["nodes"])
    assert sum(len(s["replayed_at"]) for s in data["segments"]) >= 100
    assert searched[0] <= 3 * n  # the tape once before the pass, each segment's nodes once after (was ~100 n)
    # every replayed segment's recomputed values were still caught, at the step of the replay
    replay_steps = {k for s in data["segments"] for k in s["replayed_at"]}
    caught = [nd["value_from_step"] for nd in data["nodes"] if nd["value_from_step"] is not None]
    assert caught and set(caught) <= replay_steps
